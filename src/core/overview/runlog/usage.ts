// Tokens and their cost: what the endpoint reported (`usage`) for samples, summed over runs, and
// priced by a profile's `price`. The run log records them; the run summary, `vtask stats` and the
// dashboard say them with `usageText`.
import { count, dollars } from '../../base/usageFormat';
import type { Price } from '../../sampling/types';

/** Tokens the endpoint reported (`usage`), summed over a run's samples. */
export interface Tokens {
  readonly prompt: number;
  readonly completion: number;
}

/** The tokens of samples that reported `usage`; undefined when none did. */
export function tokensOf(
  samples: readonly { readonly usage?: { readonly promptTokens?: number; readonly completionTokens?: number } }[],
): Tokens | undefined {
  let prompt = 0;
  let completion = 0;
  let any = false;
  for (const s of samples) {
    if (!s.usage) continue;
    any = true;
    prompt += s.usage.promptTokens ?? 0;
    completion += s.usage.completionTokens ?? 0;
  }
  return any ? { prompt, completion } : undefined;
}

/** Dollars for `t` at `price` (dollars per million tokens). */
export function costOf(t: Tokens, price: Price): number {
  return (t.prompt * price.prompt + t.completion * price.completion) / 1e6;
}

/** Tokens (and their cost) as the run summary and statistics say them: `1,200 prompt + 3,400 completion tokens, $0.0021`. */
export function usageText(t: Tokens, cost?: number): string {
  return `${count(t.prompt)} prompt + ${count(t.completion)} completion tokens${cost === undefined ? '' : `, ${dollars(cost)}`}`;
}
