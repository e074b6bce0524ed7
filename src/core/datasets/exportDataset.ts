// `vtask export`: task files → training rows, curated, written to one file per split. Rows are
// streamed into their files as each task file is read; the output appears only when the whole
// export succeeded (written to a temporary name, then renamed), so a failed export never leaves
// a partial dataset behind.
import { at, must } from '../util/must';
import fs from 'node:fs';
import path from 'node:path';
import type { TaskSpec } from '../taskfile/resolve';
import type { ChunkBatchParser } from '../taskfile/stream';
import { streamFileTasks } from './fileTasks';
import { agentRewardGap, environmentRef } from './agentRows';
import { mixKeeps, promptKey, splitOf, type SplitShare } from './curate';
import type { DatasetFormat, ExportSettings, RunSummary } from './format';
import { graderClass, rftGrader, type GraderClass } from './openaiRft';
import { openRowSink, type RowFileType, type RowSink } from './rowFiles';
import type { TimeSlices } from '../util/slices';

export interface ExportRequest {
  readonly files: readonly string[];
  readonly format: DatasetFormat;
  readonly out: string;
  readonly type: RowFileType;
  readonly settings: ExportSettings;
  readonly split?: readonly SplitShare[];
  readonly seed: number;
  /** Drop tasks whose prompt is identical to an earlier one's (reported). */
  readonly dedupe: boolean;
  /** Drop tasks the format cannot express (reported) instead of failing. */
  readonly lossy: boolean;
  /** Per task file (as given): the weight of `--mix`. */
  readonly mix?: ReadonlyMap<string, number>;
  /** What a cached run says about a task, when one exists. */
  readonly runOf?: (file: string, task: TaskSpec) => RunSummary | undefined;
  /** Only the tasks it picks (by file and id; an invalid task may have none), as if the rest were not there. */
  readonly select?: (file: string, id: string | undefined) => boolean;
  /** Stops the export (nothing is written) between two tasks. */
  readonly signal?: AbortSignal;
  /** Cuts the loop into slices, so that a thread serving others (the extension host) is never held long. */
  readonly slices?: TimeSlices;
  /** Keeps a task given its run (band and pass-rate filters); undefined keeps all. */
  readonly keep?: (run: RunSummary | undefined) => boolean;
  /** The model of an `openai-rft` judge grader. */
  readonly judgeModel: string;
  /** Parses large files' task chunks elsewhere (worker threads); in this thread without it. */
  readonly parseBatch?: ChunkBatchParser;
  /** Reads a task file; the CLI turns its errors into messages. */
  readonly read: (file: string) => string;
  /**
   * Writes each split as Parquet shards in this folder (`train-00000-of-00002.parquet`, as the
   * Hub names them) instead of `out`'s one file per split; `out` then only places environments.
   */
  readonly shards?: ShardBound & { readonly dir: string };
  /** Told of every row written, with its task and run (what a dataset card sums up). */
  readonly observe?: (task: TaskSpec, run: RunSummary | undefined, ref: TaskRef) => void;
}

/** When a shard is full: past `bytes` of rows (as JSON text, uncompressed) or `rows` rows. */
export interface ShardBound {
  readonly bytes?: number;
  readonly rows?: number;
}

export interface TaskRef {
  readonly file: string;
  readonly task: string;
  /** 1-based line of the task in its file. */
  readonly line: number;
}

export interface ExportReport {
  /** Output files with their row counts, by split ('' without splits). */
  readonly outputs: { split: string; file: string; rows: number }[];
  /** The grader file of an `openai-rft` export. */
  grader?: string;
  /** Tasks the format cannot express: errors, or with `lossy` the tasks dropped. */
  readonly unexpressible: (TaskRef & { reason: string })[];
  readonly duplicates: (TaskRef & { of: TaskRef })[];
  /** Rows written that a trainer will not score as vtask does (an agent task's trajectory checks). */
  readonly warnings: (TaskRef & { reason: string })[];
  /**
   * Tasks with validation errors, which are never exported; an error outside the tasks (a file
   * that is not a task file, or over a limit, which then gives no tasks) has an empty task and
   * its `reason`.
   */
  readonly invalid: (TaskRef & { reason?: string })[];
  /** Tasks left out by `--mix` or the run filters. */
  filtered: number;
  /** True when nothing was written because of errors. */
  failed: boolean;
}

/** `data/out.parquet` with split `train` → `data/out.train.parquet`. */
export function splitFile(out: string, split: string): string {
  if (!split) return out;
  const ext = path.extname(out);
  return out.slice(0, out.length - ext.length) + '.' + split + ext;
}

/** The grader beside the rows: `data/rft.jsonl` → `data/rft.grader.json`. */
export function graderFile(out: string): string {
  return out.slice(0, out.length - path.extname(out).length) + '.grader.json';
}

/** `train`, shard 0 of 2 → `train-00000-of-00002.parquet`. */
export function shardName(split: string, i: number, of: number): string {
  const five = (n: number): string => String(n).padStart(5, '0');
  return `${split}-${five(i)}-of-${five(of)}.parquet`;
}

const temp = (f: string): string => `${f}.${process.pid}.tmp`;

/**
 * One split's rows: one file, or consecutive shards each closed when the next row would take it
 * past the bound (a shard has at least one row, so a row larger than the bound is a shard alone).
 * Files are written under temporary names; `commit` gives them their names.
 */
class SplitOutput {
  index = 0;
  private readonly parts: { temp: string; rows: number; bytes: number; sink: RowSink }[] = [];
  constructor(
    readonly split: string,
    /** The split's file, or where its shards go (what environments are relative to). */
    readonly file: string,
    private readonly open: (file: string) => Promise<RowSink>,
    private readonly shards?: ShardBound & { readonly dir: string },
  ) {}

  async start(): Promise<void> {
    await this.next();
  }

  private async next(): Promise<void> {
    const t = this.shards
      ? path.join(this.shards.dir, `${this.split || 'train'}-${this.parts.length}.parquet.${process.pid}.tmp`)
      : temp(this.file);
    this.parts.push({ temp: t, rows: 0, bytes: 0, sink: await this.open(t) });
  }

  /** The file being written: there is one from the start. */
  private last(): (typeof this.parts)[number] {
    return at(this.parts, this.parts.length - 1);
  }

  async write(row: Record<string, unknown>): Promise<void> {
    let part = this.last();
    const bytes = this.shards?.bytes === undefined ? 0 : Buffer.byteLength(JSON.stringify(row));
    const full =
      this.shards &&
      part.rows > 0 &&
      ((this.shards.rows !== undefined && part.rows >= this.shards.rows) ||
        (this.shards.bytes !== undefined && part.bytes + bytes > this.shards.bytes));
    if (full) {
      await part.sink.close();
      await this.next();
      part = this.last();
    }
    part.rows++;
    part.bytes += bytes;
    await part.sink.write(row);
  }

  /** Closes the files; keeps them under their names, or removes them when `keep` is false. */
  async finish(keep: boolean): Promise<{ file: string; rows: number }[]> {
    await this.last().sink.close();
    if (!keep) {
      this.abort();
      return [];
    }
    return this.parts.map((p, i) => {
      const file = this.shards
        ? path.join(this.shards.dir, shardName(this.split || 'train', i, this.parts.length))
        : this.file;
      fs.renameSync(p.temp, file);
      return { file, rows: p.rows };
    });
  }

  abort(): void {
    for (const p of this.parts) fs.rmSync(p.temp, { force: true });
  }
}

export async function exportDataset(req: ExportRequest): Promise<ExportReport> {
  const report: ExportReport = {
    outputs: [],
    unexpressible: [],
    duplicates: [],
    warnings: [],
    invalid: [],
    filtered: 0,
    failed: false,
  };
  const splits = req.split?.map((s) => s.name) ?? [''];
  const sinks = new Map<string, SplitOutput>();
  const open = (file: string): Promise<RowSink> => openRowSink(file, req.type, req.format.columns(req.settings));
  for (const s of splits) {
    const out = new SplitOutput(
      s,
      req.shards ? path.join(req.shards.dir, 'x.parquet') : splitFile(req.out, s),
      open,
      req.shards,
    );
    sinks.set(s, out);
    await out.start();
  }
  const seen = new Map<string, TaskRef>();
  const classes = new Set<GraderClass>();
  try {
    for (const file of req.files) {
      // One task at a time: a large file never has all its trees in memory at once.
      const stream = streamFileTasks(file, req.read(file), req.parseBatch);
      const line = (offset: number): number => stream.lines.position(offset).line + 1;
      const fileError = stream.fileIssues.find((i) => i.severity === 'error');
      if (fileError) report.invalid.push({ file, task: '', line: line(fileError.start), reason: fileError.message });
      const weight = req.mix?.get(file);
      // `--mix` draws from all of a file's task ids, so it needs them before the first row.
      const keeps =
        weight === undefined
          ? undefined
          : mixKeeps(await idsOf(streamFileTasks(file, req.read(file), req.parseBatch).tasks), weight, req.seed, file);
      for await (const { entry, spec: task } of stream.tasks) {
        req.signal?.throwIfAborted();
        if (req.slices?.due) await req.slices.next();
        if (req.select && !req.select(file, task?.id ?? entry.id)) continue;
        if (!task) {
          report.invalid.push({ file, task: entry.id ?? `#${entry.index + 1}`, line: line(entry.offset) });
          continue;
        }
        const ref: TaskRef = { file, task: task.id, line: line(task.offset) };
        if (keeps && !keeps.has(task.id)) {
          report.filtered++;
          continue;
        }
        const run = req.runOf?.(file, task);
        if (req.keep && !req.keep(run)) {
          report.filtered++;
          continue;
        }
        if (req.dedupe) {
          const key = promptKey(task.messages);
          const first = seen.get(key);
          if (first) {
            report.duplicates.push({ ...ref, of: first });
            continue;
          }
          seen.set(key, ref);
        }
        const split = req.split ? splitOf(req.split, req.seed, task.id) : '';
        const out = must(sinks.get(split), 'every split has its output, opened before the tasks are read');
        const agent = environmentRef(task, file, out.file);
        const result = req.format.toRow(
          { file, task, index: out.index, split: split || undefined, run, agent },
          req.settings,
        );
        if ('error' in result) {
          report.unexpressible.push({ ...ref, reason: result.error });
          continue;
        }
        if (req.format.name === 'openai-rft') {
          const cls = graderClass(task.verify);
          if (typeof cls === 'string') classes.add(cls);
        }
        const gap = agent && !req.format.rewardsTrajectories && agentRewardGap(task);
        if (gap) report.warnings.push({ ...ref, reason: gap });
        out.index++;
        await out.write(result.row);
        req.observe?.(task, run, ref);
      }
    }
    let grader: { grader: Record<string, unknown> } | { error: string } | undefined;
    if (req.format.name === 'openai-rft' && classes.size) grader = rftGrader(classes, req.judgeModel);
    report.failed = (report.unexpressible.length > 0 && !req.lossy) || (grader !== undefined && 'error' in grader);
    if (grader && 'error' in grader) report.unexpressible.push({ file: '', task: '', line: 0, reason: grader.error });
    for (const [split, s] of sinks)
      for (const o of await s.finish(!report.failed)) report.outputs.push({ split, ...o });
    if (!report.failed && grader && 'grader' in grader) {
      report.grader = graderFile(req.out);
      fs.writeFileSync(report.grader, JSON.stringify(grader.grader, null, 2) + '\n');
    }
    return report;
  } catch (e) {
    for (const s of sinks.values()) s.abort();
    throw e;
  }
}

async function idsOf(tasks: AsyncIterable<{ spec: TaskSpec | undefined }>): Promise<string[]> {
  const ids: string[] = [];
  for await (const t of tasks) if (t.spec) ids.push(t.spec.id);
  return ids;
}
