// `vtask export --format verifiers|inspect -o DIR`: the folder formats whose rows come with code.
// Where the rows go inside DIR, the environments copied beside them, and the files written once
// the rows are (the verifiers package's pyproject, README and module; Inspect's tasks.py).
import fs from 'node:fs';
import path from 'node:path';
import type { ExportReport } from './exportDataset';
import type { DatasetFormat } from './format';
import { verifierKind } from './hf';
import { INSPECT_FORMAT, inspectTaskFile } from './inspectTask';
import { EnvironmentBundle, SamplingTally } from './packageRows';
import { packageNames, VERIFIERS_FORMAT, verifiersPackage } from './verifiersEnv';
import type { TaskSpec } from '../taskfile/resolve';
import { version } from '../version';

export const PACKAGE_FORMATS: ReadonlySet<string> = new Set([VERIFIERS_FORMAT, INSPECT_FORMAT]);

export interface PackageExport {
  /** The rows' file (before splits): what exportDataset writes. */
  readonly out: string;
  /** The format, with agent rows referencing the environments copied into DIR. */
  readonly format: DatasetFormat;
  readonly observe: (task: TaskSpec) => void;
  /** Copies the environments and writes the package's files; returns the files, relative to DIR. */
  finish(report: ExportReport): string[];
}

/** Prepares the export of `format` into the folder `dir`. */
export function packageExport(format: DatasetFormat, dir: string): PackageExport {
  const verifiers = format.name === VERIFIERS_FORMAT;
  const names = packageNames(dir);
  const home = verifiers ? path.join(dir, names.module) : dir;
  const rowsDir = verifiers ? path.join(home, 'data') : dir;
  const out = path.join(rowsDir, verifiers ? 'tasks.parquet' : 'dataset.jsonl');
  const bundle = new EnvironmentBundle(path.join(home, 'envs'), rowsDir, path.resolve(dir));
  const sampling = new SamplingTally();
  const kinds = new Map<string, number>();
  let agentTasks = 0;
  const observe = (task: TaskSpec): void => {
    sampling.observe(task);
    const kind = verifierKind(task.verify);
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    if (task.environment) agentTasks++;
  };
  const finish = (report: ExportReport): string[] => {
    bundle.copy();
    const splits = report.outputs.map((o) => ({
      name: o.split || 'train',
      file: path.relative(rowsDir, o.file).split(path.sep).join('/'),
      rows: o.rows,
    }));
    const { args, others } = sampling.common();
    const files = verifiers
      ? verifiersPackage({
          ...names,
          splits,
          kinds,
          agentTasks,
          sampling: args,
          otherSampling: others,
          boxed: kinds.size === 1 && kinds.has('math'),
          version,
        })
      : { 'tasks.py': inspectTaskFile({ splits, sampling: args, otherSampling: others, agentTasks, version }) };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    }
    // Row files an earlier export left (other splits) would be listed by nothing: removed.
    const written = new Set(report.outputs.map((o) => path.resolve(o.file)));
    for (const f of fs.readdirSync(rowsDir))
      if (/^(tasks|dataset)(\.[\w-]+)?\.(parquet|jsonl)$/.test(f) && !written.has(path.join(rowsDir, f)))
        fs.rmSync(path.join(rowsDir, f));
    return Object.keys(files);
  };
  fs.mkdirSync(rowsDir, { recursive: true });
  return { out, format: bundle.wrap(format), observe, finish };
}
