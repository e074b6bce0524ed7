import { at } from '../../util/must';
/**
 * Finds the final answer in a response: the last \boxed{} (brace-matched), an answer line, a
 * short answer on its own, the last math region, or the last number. Every scan here is
 * linear and works on a bounded tail of the text, so a 5 MB response costs milliseconds.
 */

export type Source = 'boxed' | 'answer line' | 'whole answer' | 'math region' | 'last number';

export interface Candidate {
  /** The answer text as found (delimiters removed). */
  readonly text: string;
  readonly source: Source;
  /** What to show a person: `\boxed{71}`, `Final Answer: 72`. */
  readonly shown: string;
  /** For boxes written together ("\boxed{1} and \boxed{2}"), each box's content. */
  readonly parts?: readonly string[];
  /** Alternatives to try, in order, when `text` does not parse (answer lines only). */
  readonly fallbacks?: readonly string[];
}

/** How much of the end of a response is searched for answer lines, regions and numbers. */
const TAIL = 30_000;
const MAX_BOXES = 64;

interface Box {
  readonly content: string;
  readonly start: number;
  readonly end: number;
}

/** All \boxed{...} / \fbox{...} (and `\boxed 5`), last ones first searched from the end. */
export function findBoxes(s: string): Box[] {
  const found: Box[] = [];
  let from = s.length;
  while (found.length < MAX_BOXES) {
    const a = s.lastIndexOf('\\boxed', from);
    const b = s.lastIndexOf('\\fbox', from);
    const at = Math.max(a, b);
    if (at < 0) break;
    from = at - 1;
    let i = at + (at === a ? 6 : 5);
    if (/[a-zA-Z]/.test(s[i] ?? '')) continue;
    while (s[i] === ' ') i++;
    if (s[i] === '{') {
      const end = matchBrace(s, i);
      // An unclosed box runs to the end of the text (models stop mid-answer); the parser
      // then reports it as unparsed if it is not readable.
      const close = end < 0 ? s.length : end;
      found.push({ content: s.slice(i + 1, close), start: at, end: end < 0 ? s.length : end + 1 });
    } else {
      const m = /^[^\s$.,;]+/.exec(s.slice(i, i + 200));
      if (m) found.push({ content: m[0], start: at, end: i + m[0].length });
    }
    if (from < 0) break;
  }
  return found.reverse();
}

/** Index of the brace closing the one at `open`, or -1; escaped braces do not count. */
export function matchBrace(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 92 /* \ */) {
      i++;
      continue;
    }
    if (c === 123) depth++;
    else if (c === 125 && --depth === 0) return i;
  }
  return -1;
}

/**
 * Boxes belong to one answer when only a connector separates them ("and", a comma, \quad,
 * or no words at all); boxes far apart are intermediate results, and the last group counts.
 */
function joinable(gap: string): boolean {
  const g = gap
    .replace(/\\text\w*\{([^{}]*)\}/g, ' $1 ')
    .replace(/\\[()[\]]|\$|\\q?quad|\\[,;! ]/g, ' ')
    .trim();
  if (g.length > 60) return false;
  if (!/[a-zA-Z]/.test(g)) return true;
  // A connector plus at most a few words ("papers and", "for part (a) and"), not a sentence.
  const words = g.split(/[^a-zA-Z]+/).filter((w) => w && !/^(and|or)$/i.test(w));
  return words.length <= 3 && /(^|[\s,;])(and|or)($|[\s,;])|,|;/.test(g);
}

export function stripDelimiters(s: string): string {
  return s
    .replace(/\\\[|\\\]|\\\(|\\\)/g, ' ')
    .replace(/(?<!\\)\$+/g, ' ')
    .trim();
}

interface Region {
  readonly content: string;
  readonly start: number;
  readonly end: number;
}

/** $$..$$, \[..\], $..$ and \(..\) regions; inline ones may not span lines. */
export function mathRegions(s: string, offset = 0): Region[] {
  const out: Region[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    let open = '';
    let close = '';
    if (c === '$' && s[i - 1] !== '\\') {
      open = s[i + 1] === '$' ? '$$' : '$';
      close = open;
    } else if (c === '\\' && (s[i + 1] === '[' || s[i + 1] === '(')) {
      open = s.slice(i, i + 2);
      close = s[i + 1] === '[' ? '\\]' : '\\)';
    }
    if (!open) {
      i++;
      continue;
    }
    let j = s.indexOf(close, i + open.length);
    while (j > 0 && close === '$' && s[j - 1] === '\\') j = s.indexOf(close, j + 1);
    if (j < 0) break;
    const content = s.slice(i + open.length, j);
    const inline = open === '$' || open === '\\(';
    if (inline && content.includes('\n')) {
      i += open.length;
      continue;
    }
    if (content.trim()) out.push({ content, start: offset + i, end: offset + j + close.length });
    i = j + close.length;
  }
  return out;
}

const ANSWER_PATTERNS: readonly RegExp[] = [
  /final answer is\s*[:：]?\s*/gi,
  /\bthe answer is\s*[:：]?\s*/gi,
  /\b(?:final\s+)?answer\s*(?:\*\*)?\s*[:：]\s*(?:\*\*)?\s*/gi,
  /^[ \t]*#{4}[ \t]*/gm,
];

interface AnswerLine {
  readonly at: number;
  readonly content: string;
  readonly shown: string;
}

function lastAnswerLine(s: string, offset: number): AnswerLine | null {
  let best: AnswerLine | null = null;
  for (const re of ANSWER_PATTERNS) {
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    let last: RegExpExecArray | null = null;
    while ((m = re.exec(s))) {
      last = m;
      if (m[0].length === 0) re.lastIndex++;
    }
    if (last && (!best || offset + last.index > best.at)) {
      const start = last.index + last[0].length;
      const nl = s.indexOf('\n', start);
      const line = s.slice(start, nl < 0 ? Math.min(s.length, start + 500) : Math.min(nl, start + 500));
      if (line.trim()) best = { at: offset + last.index, content: line, shown: (last[0] + line).trim() };
    }
  }
  // **X** closing the response is an answer line too (markdown-bold final answers).
  const bold = /\*\*([^*\n]{1,200})\*\*[\s.!]*$/.exec(s.slice(-400));
  if (bold && !best) best = { at: offset + s.length - 400 + bold.index, content: at(bold, 1), shown: bold[0].trim() };
  return best;
}

/** Cleans an answer line down to the answer: its math region, or the words after "is". */
export function answerLineText(line: string): { text: string; fallbacks: string[] } {
  // Quotes around the answer ("$12$ and $13$" written as \"...\") are not part of it.
  let c = line
    .replace(/\*\*/g, '')
    .replace(/\\?["“”]/g, '')
    .trim();
  const startsWithMath = /^(\$|\\\(|\\\[)/.test(c);
  c = c.split(/\.\s+(?=[A-Z<])|\.\s*$|\s+I hope\b/)[0] ?? c;
  const regions = mathRegions(c);
  if (startsWithMath && regions[0]) {
    // "$12$ and $13$": regions joined by connectors are one answer; otherwise the first region.
    let rest = c;
    for (const r of regions) rest = rest.replace(r.content, ' ');
    if (/^[\s$\\()[\],;]*(?:(?:and|or)[\s$\\()[\],;]*)*$/i.test(rest))
      return { text: stripDelimiters(c), fallbacks: [] };
    return { text: regions[0].content.trim(), fallbacks: [] };
  }
  const is = c.toLowerCase().lastIndexOf(' is ');
  if (is >= 0) c = c.slice(is + 4);
  c = c.replace(/^[\s:]+|[\s.,;:!]+$/g, '');
  const fallbacks: string[] = [];
  const lead = /^[-+]?(?:\d[\d,]*)?\.?\d+(?:\s*\/\s*\d+)?(?:\s*(?:\\?%|percent\b))?/.exec(c);
  if (lead) fallbacks.push(lead[0]);
  const inner = mathRegions(c);
  if (inner.length) fallbacks.push(at(inner, inner.length - 1).content);
  const num = lastNumber(c);
  if (num) fallbacks.push(num);
  return { text: stripDelimiters(c), fallbacks };
}

/** The last number, with thousands separators, decimals, a simple fraction or a percent sign. */
export function lastNumber(s: string): string | null {
  return lastNumberAt(s)?.text ?? null;
}

function lastNumberAt(s: string): { text: string; at: number } | null {
  const re =
    /(?<![A-Za-z0-9_.^\\])-?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:[.,]\d+)?(?:\s*\/\s*\d+(?:\.\d+)?)?(?:\s*(?:\\?%|percent\b))?/g;
  let m: RegExpExecArray | null;
  let last: { text: string; at: number } | null = null;
  while ((m = re.exec(s))) last = { text: m[0], at: m.index };
  return last;
}

export interface ExtractOptions {
  /** Fall back to the last number (Math-Verify's `expr` extraction); default true. */
  readonly lastNumber?: boolean;
}

/** The final answer of a response, or null when nothing answer-like is found. */
export function extractAnswer(response: string, opts: ExtractOptions = {}): Candidate | null {
  const boxes = findBoxes(response);
  const tailStart = Math.max(0, response.length - TAIL);
  const tail = response.slice(tailStart);
  const line = lastAnswerLine(tail, tailStart);
  if (boxes.length) {
    const lastBox = at(boxes, boxes.length - 1);
    // "The final answer is X" written after the last box wins: the boxes were intermediate.
    if (!(line && line.at >= lastBox.end && !/^#/.test(line.shown))) {
      const group: Box[] = [lastBox];
      for (let k = boxes.length - 2; k >= 0; k--) {
        const b = at(boxes, k);
        const first = at(group, 0);
        if (b.end > first.start || !joinable(response.slice(b.end, first.start))) break;
        group.unshift(b);
      }
      const parts = group.map((b) => stripDelimiters(b.content));
      const shown = group.map((b) => `\\boxed{${b.content}}`).join(', ');
      return { text: parts.join(', '), source: 'boxed', shown: clip(shown), parts };
    }
  }
  if (line) {
    const { text, fallbacks } = answerLineText(line.content);
    if (text) return { text, source: 'answer line', shown: clip(line.shown), fallbacks };
  }
  const trimmed = response.trim();
  // A short answer on its own ("28 percent", "x = 3", "$\\frac{1}{2}$") is read whole; prose
  // with math inside ("Therefore $x \\ge 5$ is the solution") goes to its last math region.
  const wrapped =
    /^(\$\$?|\\\[|\\\()/.test(trimmed) && mathRegions(trimmed).length === 1 && mathRegions(trimmed)[0]?.start === 0;
  const bare = !/(?<!\\)\$|\\\[|\\\(/.test(trimmed);
  if (trimmed.length <= 300 && (wrapped || bare)) {
    const whole = stripDelimiters(trimmed.replace(/[.。]\s*$/, ''));
    if (whole)
      return { text: whole, source: 'whole answer', shown: clip(trimmed), fallbacks: regionsAndNumber(tail, opts) };
  }
  const rest = regionsAndNumber(tail, opts);
  const lastRegion = mathRegions(tail);
  const n = opts.lastNumber !== false ? lastNumberAt(tail) : null;
  const r0 = lastRegion[lastRegion.length - 1];
  // A number written after the last math region is the later statement, so it wins.
  if (n && (!r0 || n.at > r0.end)) return { text: n.text, source: 'last number', shown: n.text };
  if (lastRegion.length) {
    const r = at(lastRegion, lastRegion.length - 1);
    return {
      text: r.content.trim(),
      source: 'math region',
      shown: clip(`$${r.content.trim()}$`),
      fallbacks: rest.slice(1),
    };
  }
  return null;
}

function regionsAndNumber(tail: string, opts: ExtractOptions): string[] {
  const out = mathRegions(tail)
    .slice(-4)
    .reverse()
    .map((r) => r.content.trim());
  if (opts.lastNumber !== false) {
    const n = lastNumber(tail);
    if (n) out.push(n);
  }
  return out;
}

export function clip(s: string, max = 80): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > max ? one.slice(0, max - 1) + '…' : one;
}
