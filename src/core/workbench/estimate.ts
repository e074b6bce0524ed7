// What a run of the workbench's selection may cost, said before it starts (tokens from earlier
// runs, priced by the profile each task runs with), and what it did cost once it ran.
import { count, dollars } from '../base/usageFormat';
import { costOf, usageText, type Tokens } from '../overview/runlog/usage';
import type { Price } from '../sampling/types';
import { plural } from '../util/plural';
import type { WorkbenchRowView } from './index';

/** A task about to run: its row, its samples, the model it runs with (its label) and that profile's price. */
export interface PlannedTask {
  readonly row: WorkbenchRowView;
  readonly samples: number;
  /** The model's label as the run log names it; undefined when no model resolves for the task. */
  readonly model?: string;
  readonly price?: Price;
}

export interface RunEstimate {
  readonly tasks: number;
  /** The sample budget: samples over all tasks. */
  readonly samples: number;
  /** Tokens expected from earlier runs' tokens per sample; undefined when no earlier run reported any. */
  readonly tokens?: Tokens;
  /** Tasks with no earlier run of their own that reported tokens: estimated from the others'. */
  readonly borrowed: number;
  /** Dollars for the tasks whose model has a price; undefined when none has. */
  readonly cost?: number;
  /** Models (labels) without a price. */
  readonly unpriced: readonly string[];
}

/** Tokens per sample of a run, when it reported them. */
function perSample(run: WorkbenchRowView['runs'][number] | undefined): Tokens | undefined {
  if (!run || run.tokens === undefined || run.promptTokens === undefined || run.samples <= 0) return undefined;
  return { prompt: run.promptTokens / run.samples, completion: (run.tokens - run.promptTokens) / run.samples };
}

/** The mean tokens per sample of runs, weighted by their samples. */
function mean(runs: readonly (WorkbenchRowView['runs'][number] | undefined)[]): Tokens | undefined {
  let prompt = 0;
  let completion = 0;
  let samples = 0;
  for (const r of runs) {
    const each = perSample(r);
    if (!each || !r) continue;
    prompt += each.prompt * r.samples;
    completion += each.completion * r.samples;
    samples += r.samples;
  }
  return samples ? { prompt: prompt / samples, completion: completion / samples } : undefined;
}

/**
 * The estimate of a run of `planned` (`models`: the index's models, in its rows' `runs` order).
 * A task's tokens per sample are its own last run's with its model; else the mean of that
 * model's runs of the selection; else the mean of every run of the selection.
 */
export function estimateRun(models: readonly string[], planned: readonly PlannedTask[]): RunEstimate {
  const all = mean(planned.flatMap((p) => p.row.runs));
  const byModel = new Map<string, Tokens | undefined>();
  const modelMean = (m: number): Tokens | undefined => {
    const name = models[m] as string;
    if (!byModel.has(name)) byModel.set(name, mean(planned.map((p) => p.row.runs[m] ?? null)));
    return byModel.get(name);
  };
  let prompt = 0;
  let completion = 0;
  let known = false;
  let cost: number | undefined;
  let borrowed = 0;
  let samples = 0;
  const unpriced = new Set<string>();
  for (const p of planned) {
    samples += p.samples;
    const m = p.model === undefined ? -1 : models.indexOf(p.model);
    const own = m < 0 ? undefined : perSample(p.row.runs[m]);
    const each = own ?? (m < 0 ? undefined : modelMean(m)) ?? all;
    if (!own) borrowed++;
    if (p.price) cost ??= 0;
    else unpriced.add(p.model ?? 'no model configured');
    if (!each) continue;
    known = true;
    const t = { prompt: each.prompt * p.samples, completion: each.completion * p.samples };
    prompt += t.prompt;
    completion += t.completion;
    if (p.price) cost = (cost ?? 0) + costOf(t, p.price);
  }
  return {
    tasks: planned.length,
    samples,
    ...(known ? { tokens: { prompt: Math.round(prompt), completion: Math.round(completion) } } : {}),
    borrowed,
    ...(known && cost !== undefined ? { cost } : {}),
    unpriced: [...unpriced],
  };
}

/** The estimate as the Run… confirmation says it. */
export function estimateText(e: RunEstimate): string {
  const budget = `Run ${plural(e.tasks, 'task')}: ${count(e.samples)} ${e.samples === 1 ? 'sample' : 'samples'}.`;
  if (!e.tokens)
    return `${budget} Tokens and cost: no earlier run of these tasks reported tokens to estimate them from.`;
  const tokens = `About ${count(e.tokens.prompt + e.tokens.completion)} tokens (${count(e.tokens.prompt)} prompt + ${count(e.tokens.completion)} completion)`;
  const cost =
    e.cost === undefined
      ? 'cost: no price configured'
      : `about ${dollars(e.cost)}${e.unpriced.length ? ' (without the tasks whose model has no price)' : ''}`;
  const unpriced = e.unpriced.length
    ? ` No price configured for ${e.unpriced.join(', ')}: a profile's price is { prompt, completion } in dollars per million tokens.`
    : '';
  const borrowed = e.borrowed
    ? ` ${plural(e.borrowed, 'task')} never ran with ${e.borrowed === 1 ? 'its' : 'their'} model with token counts: estimated from the other runs.`
    : '';
  return `${budget} ${tokens}, ${cost}.${unpriced}${borrowed}`;
}

/** What one task of a run used: its samples, their tokens (when reported) and its profile's price. */
export interface TaskUsage {
  readonly samples: number;
  readonly tokens?: Tokens;
  readonly price?: Price;
}

/** What the tasks of a run used, as the workbench says it once the run is over. */
export function actualText(done: readonly TaskUsage[]): string {
  let samples = 0;
  let prompt = 0;
  let completion = 0;
  let reported = false;
  let cost: number | undefined;
  let unpriced = false;
  for (const d of done) {
    samples += d.samples;
    if (!d.tokens) continue;
    reported = true;
    prompt += d.tokens.prompt;
    completion += d.tokens.completion;
    if (d.price) cost = (cost ?? 0) + costOf(d.tokens, d.price);
    else unpriced = true;
  }
  const head = `Ran ${plural(done.length, 'task')}: ${count(samples)} ${samples === 1 ? 'sample' : 'samples'}`;
  if (!reported) return `${head}; the endpoint reported no tokens.`;
  const priced = cost === undefined ? '; no price configured' : unpriced ? ' for the priced models' : '';
  return `${head}, ${usageText({ prompt, completion }, cost)}${priced}.`;
}
