// What the folder exports (verifiers environments, Inspect tasks) share: the vtask fields a row
// carries so the package's reward asks `vtask serve` about it (`vtaskInfo`), the environments
// copied into the folder so the package runs where it is installed (`EnvironmentBundle`), and the
// sampling settings the package defaults to (`SamplingTally`).
import { listOr, parseJson, recordOr } from '../base/record';
import fs from 'node:fs';
import path from 'node:path';
import type { TaskSpec } from '../taskfile/resolve';
import { kindParams, traceFields } from './common';
import type { DatasetFormat, ExportSettings, ExportTask, RowResult } from './format';

/** Why a verifier cannot be scored away from its task file, or undefined. */
export function programVerifier(verify: unknown): string | undefined {
  const kp = kindParams(verify);
  if (!kp) return undefined;
  if (kp.kind === 'script')
    return "its `script` verifier runs a program of the task file's folder, which the exported package does not carry";
  const nested =
    kp.kind === 'weighted'
      ? listOr(kp.params.of).map((c) => recordOr(c).verify)
      : kp.kind === 'all' || kp.kind === 'any'
        ? listOr(kp.params.of)
        : [];
  return nested.map(programVerifier).find((r) => r !== undefined);
}

/** The sampling settings a package passes its model, as the OpenAI API names them. */
export function samplingArgs(task: TaskSpec): Record<string, unknown> {
  const s = task.sampling;
  const out: Record<string, unknown> = {};
  for (const k of ['temperature', 'top_p', 'max_tokens', 'seed', 'stop'] as const)
    if (s[k] !== undefined) out[k] = s[k];
  return out;
}

/** The fields of a row's `info` (verifiers) or `metadata` (Inspect) that vtask reads back. */
export function vtaskInfo(t: ExportTask, settings: ExportSettings): Record<string, unknown> {
  const trace = traceFields(t, settings);
  return {
    task_id: t.task.id,
    file: trace.file,
    vtask_verifier: trace.vtask_verifier,
    vtask_version: trace.vtask_version,
    tags: [...t.task.tags],
    band: trace.band,
    pass_rate: trace.pass_rate,
    environment: t.agent?.environment ?? null,
    environment_args: t.agent?.environment_args ?? null,
    max_turns: t.agent?.max_turns ?? null,
  };
}

/** Refuses what a package cannot score; else the format's own row. */
export function packageRow(t: ExportTask, row: () => RowResult): RowResult {
  const why = programVerifier(t.task.verify);
  return why ? { error: why } : row();
}

/**
 * The environments of the exported agent tasks, copied into the package's `envs/` folder: an
 * installed package (site-packages) cannot reach the task files' folders. Each environment's
 * folder is copied whole (an environment may import its neighbours), once, under its own name
 * (`envs/NAME`, suffixed when two folders share a name).
 */
/** Folders an environment does not need: version control, caches, installed packages. */
const SKIPPED = /^(\.git|\.vtask-cache|node_modules|__pycache__)$/;

export class EnvironmentBundle {
  private readonly names = new Map<string, string>();
  private readonly taken = new Set<string>();

  /**
   * `envsDir`: the package's `envs` folder; `rowsDir`: the folder of its row files; `pkgDir`: the
   * package, never copied into itself when it lies inside an environment's folder.
   */
  constructor(
    readonly envsDir: string,
    private readonly rowsDir: string,
    private readonly pkgDir: string,
  ) {}

  /** The task's environment program as the rows reference it: relative to the row files. */
  ref(t: ExportTask): string | undefined {
    if (!t.task.environment) return undefined;
    const program = path.resolve(path.dirname(path.resolve(t.file)), t.task.environment.run);
    const folder = path.dirname(program);
    let name = this.names.get(folder);
    if (name === undefined) {
      const base = path.basename(folder).replace(/[^\w.-]/g, '_') || 'env';
      name = base;
      for (let k = 2; this.taken.has(name); k++) name = `${base}-${k}`;
      this.names.set(folder, name);
      this.taken.add(name);
    }
    return path
      .relative(this.rowsDir, path.join(this.envsDir, name, path.basename(program)))
      .split(path.sep)
      .join('/');
  }

  /** The format with each agent row's environment referenced inside the package. */
  wrap(format: DatasetFormat): DatasetFormat {
    return {
      ...format,
      toRow: (t, s) =>
        format.toRow(t.agent ? { ...t, agent: { ...t.agent, environment: this.ref(t) ?? t.agent.environment } } : t, s),
    };
  }

  /** Copies the referenced folders (without version control, caches, node_modules and the package). */
  copy(): number {
    fs.rmSync(this.envsDir, { recursive: true, force: true });
    for (const [folder, name] of this.names) {
      this.copyTree(folder, path.join(this.envsDir, name));
    }
    return this.names.size;
  }

  /** Copies a folder file by file (fs.cpSync refuses a folder that holds its destination). */
  private copyTree(src: string, dst: string): void {
    fs.mkdirSync(dst, { recursive: true });
    for (const e of fs.readdirSync(src, { withFileTypes: true })) {
      const from = path.join(src, e.name);
      if (SKIPPED.test(e.name) || from === this.pkgDir) continue;
      if (e.isDirectory()) this.copyTree(from, path.join(dst, e.name));
      else if (e.isFile()) fs.copyFileSync(from, path.join(dst, e.name));
    }
  }
}

/** The sampling settings of the rows written, by how many tasks have each: the package's default is the commonest. */
export class SamplingTally {
  private readonly counts = new Map<string, number>();

  observe(task: TaskSpec): void {
    const key = JSON.stringify(samplingArgs(task));
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** The commonest settings, and how many tasks had other ones (which the package does not apply). */
  common(): { args: Record<string, unknown>; others: number } {
    let best = '{}';
    let n = -1;
    let total = 0;
    for (const [k, c] of this.counts) {
      total += c;
      if (c > n) [best, n] = [k, c];
    }
    return { args: recordOr(parseJson(best)), others: total - Math.max(0, n) };
  }
}
