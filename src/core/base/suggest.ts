import { distance } from 'fastest-levenshtein';

/**
 * The closest known name to a misspelt one, or undefined when nothing is close enough to
 * be a plausible typo. The bound grows with the length so `promt` finds `prompt` while a
 * short unrelated word does not drag in a random suggestion.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const lc = c.toLowerCase();
    if (lc === w) return c;
    let d = distance(w, lc);
    // An instruction id typed without its group (`no_comma`) is still a clear match.
    const colon = lc.indexOf(':');
    if (colon !== -1 && !w.includes(':')) d = Math.min(d, distance(w, lc.slice(colon + 1)) + 1);
    if (d < bestScore) {
      bestScore = d;
      best = c;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.max(2, Math.floor(Math.max(word.length, best.length) / 3));
  return bestScore <= limit ? best : undefined;
}

export function didYouMean(suggestion: string | undefined): string {
  return suggestion === undefined ? '' : ` (did you mean \`${suggestion}\`?)`;
}
