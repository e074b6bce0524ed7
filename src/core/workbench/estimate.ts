// What a run of the workbench's selection may cost, said before it starts.
import type { WorkbenchRowView } from './index';

/**
 * What a run of `samples` samples over `rows` may cost, from the tokens their earlier runs
 * recorded (per sample); the run log has no prices, so the estimate is in tokens.
 */
export function costEstimate(rows: readonly WorkbenchRowView[], samples: number): string {
  let tokens = 0;
  let sampled = 0;
  for (const r of rows) {
    for (const run of r.runs) {
      if (run?.tokens === undefined || run.samples <= 0) continue;
      tokens += run.tokens;
      sampled += run.samples;
    }
  }
  if (!sampled) return 'Cost: no earlier token counts to estimate it from.';
  return `About ${Math.round((tokens / sampled) * samples).toLocaleString('en-US')} tokens, from earlier runs' ${Math.round(tokens / sampled).toLocaleString('en-US')} a sample.`;
}
