// `vtask import`: rows → a task file. The file is written task by task as rows are read, and
// every row that cannot become a task is reported with its line (JSONL) or row number
// (Parquet): nothing is dropped silently.
import { at, must } from '../util/must';
import { isRecord, recordOr } from '../base/record';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { isInside } from '../sandbox/projectRoot';
import { rebaseEnvironment } from './agentRows';
import type { ImportedTask } from './format';
import { detectFormat, IMPORT_FORMATS, type RowImporter } from './formats';
import { readRows, rowFileType, type RowFileType } from './rowFiles';

export interface ImportRequest {
  readonly input: string;
  readonly type: RowFileType;
  /**
   * The row files when `input` is a folder (a Hub dataset's shards, a package's splits), read in
   * order as one dataset; each row's place is then given with its file.
   */
  readonly files?: readonly string[];
  /** A name of IMPORT_FORMATS, or undefined to tell from the first row. */
  readonly format?: string;
  readonly out: string;
  /** Import tasks whose script or environment path leaves the output's folder (with a warning). */
  readonly allowOutsidePaths?: boolean;
  /** How the file's first line names the input (default `input` as given): the editor names it within the workspace, never by a local absolute path. */
  readonly source?: string;
}

export interface ImportReport {
  readonly format: string;
  tasks: number;
  readonly bad: { where: string; reason: string }[];
  /** Ids that repeated and were given a suffix. */
  renamed: number;
  /** Rows imported with a path that leaves the output's folder (allowed by `allowOutsidePaths`). */
  readonly warnings: { where: string; reason: string }[];
}

/**
 * The program paths of a task (every `script: { path }` in its verifier, composites included, and
 * its environment's `run`) that resolve outside `dir`: a row could otherwise make the task file run
 * `../../../../bin/sh` or any program of the machine.
 */
export function pathsLeaving(t: ImportedTask, dir: string): string[] {
  const found: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (isRecord(v)) {
      for (const [k, x] of Object.entries(v)) {
        const p = k === 'script' ? recordOr(x).path : undefined;
        if (typeof p === 'string') found.push(p);
        walk(x);
      }
    }
  };
  walk(t.verify);
  if (t.environment) found.push(t.environment.run);
  return found.filter((p) => !isInside(path.resolve(dir, p), dir));
}

/** One task as task-file YAML: the prompt as `prompt:` (with `system:`) where it can be. */
export function taskYaml(t: ImportedTask): string {
  const text = YAML.stringify([taskObject(t)], { lineWidth: 0, blockQuote: 'literal', aliasDuplicateObjects: false });
  // Indented line by line on `\n` only: a multi-line regex would also start a line after
  // U+2028 and U+2029 inside a value, and add two spaces there at every write.
  return text
    .split('\n')
    .map((line) => (line ? '  ' + line : line))
    .join('\n');
}

/** One task as the mapping a task file holds: the prompt as `prompt:` (with `system:`) where it can be. */
export function taskObject(t: ImportedTask): Record<string, unknown> {
  const obj: Record<string, unknown> = { id: t.id };
  const m = t.messages;
  const user = m.at(-1);
  const simple = user?.role === 'user' && m.slice(0, -1).every((x, i) => i === 0 && x.role === 'system');
  if (simple && user) {
    if (m.length === 2) obj.system = at(m, 0).content;
    obj.prompt = user.content;
  } else obj.messages = m.map((x) => ({ role: x.role, content: x.content }));
  if (t.environment) obj.environment = t.environment;
  if (t.max_turns !== undefined) obj.max_turns = t.max_turns;
  obj.verify = t.verify;
  if (t.tags?.length) obj.tags = t.tags;
  if (t.meta && Object.keys(t.meta).length) obj.meta = t.meta;
  return obj;
}

export async function importDataset(req: ImportRequest): Promise<ImportReport> {
  let format = req.format;
  let importer: RowImporter | undefined = format ? IMPORT_FORMATS.get(format) : undefined;
  const report: { -readonly [K in keyof ImportReport]: ImportReport[K] } = {
    format: format ?? '',
    tasks: 0,
    bad: [],
    renamed: 0,
    warnings: [],
  };
  const outDir = path.dirname(path.resolve(req.out));
  const temp = `${req.out}.${process.pid}.tmp`;
  const fd = fs.openSync(temp, 'w');
  const ids = new Set<string>();
  let buf = `# Imported by vtask from ${(req.source ?? req.input).split('\\').join('/')}\nvtask: 1\ntasks:\n`;
  try {
    for (const file of req.files ?? [req.input]) {
      const type = req.files ? must(rowFileType(file), 'the folder lists only row files') : req.type;
      const label = req.files ? `${path.relative(req.input, file).split(path.sep).join('/')}:` : '';
      for await (const raw of readRows(file, type)) {
        const r = { ...raw, where: label + raw.where };
        if (!r.row) {
          report.bad.push({ where: r.where, reason: r.error ?? 'not a row' });
          continue;
        }
        if (!importer) {
          format = detectFormat(r.row);
          if (!format)
            throw new Error(
              `${r.where}: cannot tell the format from the columns (${Object.keys(r.row).slice(0, 8).join(', ')}): name it with --format`,
            );
          importer = must(IMPORT_FORMATS.get(format), 'the format detected is one vtask imports');
          report.format = format;
        }
        const result = importer(r.row, r.n);
        if ('error' in result) {
          report.bad.push({ where: r.where, reason: result.error });
          continue;
        }
        const task = rebaseEnvironment(result.task, file, req.out);
        const leaving = pathsLeaving(task, outDir);
        if (leaving.length) {
          const what = `${leaving.map((p) => `'${p}'`).join(', ')} ${leaving.length === 1 ? 'leaves' : 'leave'} the dataset's folder (${outDir})`;
          if (!req.allowOutsidePaths) {
            report.bad.push({
              where: r.where,
              reason: `the program path ${what}: a dataset runs only programs inside its folder (--allow-outside-paths imports it anyway)`,
            });
            continue;
          }
          report.warnings.push({ where: r.where, reason: `the program path ${what}` });
        }
        let id = task.id;
        if (ids.has(id)) {
          let k = 2;
          while (ids.has(`${id}-${k}`)) k++;
          id = `${id}-${k}`;
          report.renamed++;
        }
        ids.add(id);
        buf += taskYaml({ ...task, id });
        report.tasks++;
        if (buf.length > 1 << 20) {
          fs.writeSync(fd, buf);
          buf = '';
        }
      }
    }
    if (report.tasks === 0) buf = buf.replace(/tasks:\n$/, 'tasks: []\n');
    fs.writeSync(fd, buf);
    fs.closeSync(fd);
    fs.renameSync(temp, req.out);
    return report;
  } catch (e) {
    try {
      fs.closeSync(fd);
    } catch {
      // already closed
    }
    fs.rmSync(temp, { force: true });
    throw e;
  }
}
