/**
 * The `normalized` comparison of `match`: case, whitespace, punctuation and the articles
 * a/an/the folded, as SQuAD-style exact match does, so "The Eiffel Tower." = "eiffel tower".
 */
export function normalizeAnswer(s: string): string {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The text inside the last `<tag>...</tag>`, or undefined when there is none. */
export function lastTagged(text: string, tag: string): string | undefined {
  const close = `</${tag}>`;
  const end = text.lastIndexOf(close);
  if (end === -1) return undefined;
  const start = text.lastIndexOf(`<${tag}>`, end);
  if (start === -1) return undefined;
  return text.slice(start + tag.length + 2, end);
}

/** A short, single-line excerpt of untrusted text for reasons. */
export function excerpt(s: string, max = 60): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return JSON.stringify(one.length > max ? one.slice(0, max - 1) + '…' : one);
}
