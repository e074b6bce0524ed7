// What `vtask run` prints, written as each task's run ends rather than from every result kept to
// the end: the --json document a task entry at a time (the same bytes as one JSON.stringify of
// the whole), the text tables from each task's row and a few counters per model.
import { costOf, tokensOf, usageText, type Tokens } from '../core/overview/runlog/usage';
import type { TaskRunResult } from '../core/run/sampleTasks';
import type { Price } from '../core/sampling/types';
import { plural } from '../core/util/plural';
import type { CliIO } from './io';
import { isolationField } from './isolation';
import { terminalSafe } from './terminal';

/** One task's run by one model. */
export interface ModelRun {
  readonly file: string;
  /** The model's label (`modelLabel`): what `--model` named, or the task's profile. */
  readonly model: string;
  /** The profile's `price`, which gives its tokens a cost. */
  readonly price?: Price;
  readonly r: TaskRunResult;
}

/** What one model's table needs once its tasks' samples are gone: the rows, and the totals. */
interface ModelTable {
  readonly rows: string[][];
  readonly groupSize: number;
  samples: number;
  fromCache: number;
  requests: number;
  tokens: Tokens | undefined;
  /** The summed cost of the runs, while every run so far had a price; undefined after one without. */
  cost: number | undefined;
}

/** Output is handed to stdout in pieces of about this many characters, not a write per task. */
const CHUNK_CHARS = 64 << 10;

const pct = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '-');

export class RunOutput {
  private readonly tables = new Map<string, ModelTable>();
  private pending = '';
  private entries = 0;
  private failed = false;

  /** `invalid`: the problems found in the files before sampling, which the JSON document counts. */
  constructor(
    private readonly io: CliIO,
    private readonly json: boolean,
    private readonly invalid: number,
  ) {}

  /** A task's run, in the order of the output; nothing of its samples is kept. */
  add(run: ModelRun): void {
    const { r } = run;
    if (r.error || r.stats.band === 'error') this.failed = true;
    if (this.json) {
      this.pending += (this.entries++ === 0 ? '{"tasks":[' : ',') + JSON.stringify(jsonOf(run));
      if (this.pending.length >= CHUNK_CHARS) this.flush();
      return;
    }
    let table = this.tables.get(run.model);
    if (!table) {
      table = {
        rows: [],
        groupSize: r.stats.groupSize,
        samples: 0,
        fromCache: 0,
        requests: 0,
        tokens: undefined,
        cost: 0,
      };
      this.tables.set(run.model, table);
    }
    const fromCache = r.samples.filter((s) => s.cached).length;
    table.rows.push(rowOf(r, fromCache));
    table.samples += r.samples.length;
    table.fromCache += fromCache;
    table.requests += r.requests;
    const tokens = tokensOf(r.samples);
    if (tokens)
      table.tokens = {
        prompt: (table.tokens?.prompt ?? 0) + tokens.prompt,
        completion: (table.tokens?.completion ?? 0) + tokens.completion,
      };
    // The sum in the order the runs came, as one sum over them all gave it.
    if (table.cost !== undefined)
      table.cost = run.price ? table.cost + (tokens ? costOf(tokens, run.price) : 0) : undefined;
  }

  /** Whether a task's run failed or measured nothing (band `error`), which fails the command. */
  get anyFailed(): boolean {
    return this.failed;
  }

  /** The end of the JSON document, or the tables: called once, after the last `add`, also when a run was stopped. */
  finish(cancelled: boolean): void {
    if (this.json) {
      this.pending += `${this.entries === 0 ? '{"tasks":[' : ''}],"invalid":${this.invalid},"cancelled":${cancelled}}\n`;
      this.flush();
      return;
    }
    [...this.tables].forEach(([model, table], i) => {
      if (i > 0) this.io.stdout.write('\n');
      printTable(this.io, model, table);
    });
  }

  /** A run that failed half-way: the JSON document it began is closed, so what was printed stays one document. */
  abandon(cancelled: boolean): void {
    if (this.json && this.entries > 0) this.finish(cancelled);
  }

  private flush(): void {
    if (this.pending) this.io.stdout.write(this.pending);
    this.pending = '';
  }
}

/** The spec's JSON shape per task, plus what else a script may want. */
function jsonOf({ file, model, r, price }: ModelRun): Record<string, unknown> {
  return {
    file,
    task: r.task.id,
    model,
    profile: r.model,
    samples: r.samples.map((s) => ({
      text: s.text,
      pass: s.verdict.pass,
      score: s.verdict.score,
      reason: s.verdict.reason,
      cached: s.cached,
      truncated: s.truncated,
      finish_reason: s.finishReason,
      ...(s.verdict.error ? { error: s.verdict.error } : {}),
      ...isolationField(s.verdict),
      verified_by: s.verifiedBy,
      ...(s.trajectory ? { trajectory: s.trajectory } : {}),
    })),
    pass_rate: r.stats.passRate,
    // Samples whose verifier could not decide: left out of the pass rate, never counted as fails.
    undecided: r.stats.undecided,
    mean_score: r.stats.meanScore,
    pass_at_k: r.stats.passAtK,
    interval: r.stats.interval,
    band: r.stats.band,
    signal_share: r.stats.signalShare,
    group_size: r.stats.groupSize,
    requests: r.requests,
    ...usageFields(r.samples, price),
    ...(r.error ? { error: r.error } : {}),
    ...(r.note ? { note: r.note } : {}),
  };
}

/** A task's `tokens` and `cost` in `--json`, as the run log records them. */
function usageFields(
  samples: TaskRunResult['samples'],
  price: Price | undefined,
): { tokens?: { prompt: number; completion: number }; cost?: number } {
  const tokens = tokensOf(samples);
  return tokens ? { tokens, ...(price ? { cost: costOf(tokens, price) } : {}) } : {};
}

/** A task's row of the text table, its cells made safe for a terminal. */
function rowOf(r: TaskRunResult, fromCache: number): string[] {
  const ks = Object.keys(r.stats.passAtK);
  const kMax = ks[ks.length - 1] ?? '1';
  // A task whose sampling failed has the band `error` (taskStats): its interval of [0, 1] says nothing.
  return [
    r.task.id,
    `${r.stats.passed}/${r.stats.samples}${r.stats.undecided ? ` · ${r.stats.undecided} undecided` : ''}`,
    pct(r.stats.passAtK['1'] ?? NaN),
    `${pct(r.stats.passAtK[kMax] ?? NaN)} (k=${kMax})`,
    r.stats.band,
    r.stats.band === 'error' ? '-' : pct(r.stats.signalShare),
    `${fromCache}/${r.samples.length}`,
    [r.error, undecidedReason(r), r.note, agentSummary(r)].filter(Boolean).join('; '),
  ].map(terminalSafe);
}

/** Why samples got no verdict, as the first of them says: a task whose samples are all undecided must say why. */
function undecidedReason(r: TaskRunResult): string | undefined {
  const s = r.samples.find((x) => x.verdict.error);
  return s ? `undecided: ${s.verdict.reason}` : undefined;
}

/** An agent task's trajectories in a few words: turns and tool calls per sample, and how they stopped. */
function agentSummary(r: TaskRunResult): string | undefined {
  const ts = r.samples.flatMap((s) => (s.trajectory ? [s.trajectory] : []));
  if (!ts.length) return undefined;
  const mean = (f: (t: (typeof ts)[number]) => number): string =>
    (ts.reduce((a, t) => a + f(t), 0) / ts.length).toFixed(1);
  const stops = (['final', 'max_turns', 'error'] as const)
    .map((k) => [k, ts.filter((t) => t.stop === k).length] as const)
    .filter(([, c]) => c > 0);
  return `${mean((t) => t.turns)} turns, ${mean((t) => t.steps.length)} tool calls per sample (${stops.map(([k, c]) => `${c} ${k}`).join(', ')})`;
}

/** One model's table, under a line naming it, and its totals. */
function printTable(io: CliIO, model: string, table: ModelTable): void {
  const { rows } = table;
  io.stdout.write(terminalSafe(`model ${model}`) + '\n');
  const head = ['task', 'pass', 'pass@1', 'pass@k', 'band', `signal (G=${table.groupSize})`, 'cached', 'error / note'];
  // A loop, not Math.max(...rows): a spread of a row per task overflows the stack on a large run.
  const widths = head.map((h) => h.length);
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  io.stdout.write(line(head) + '\n');
  for (const r of rows) io.stdout.write(line(r) + '\n');
  io.stdout.write(
    `${plural(rows.length, 'task')}, ${plural(table.samples, 'sample')} (${table.fromCache} from the cache, ${plural(table.requests, 'request')})\n`,
  );
  if (table.tokens) io.stdout.write(`${usageText(table.tokens, table.cost)}\n`);
}
