/**
 * Where the cursor is in a task file, read from indentation and flow braces rather than from
 * the YAML tree, because the text being typed is usually not valid YAML yet.
 */
export interface CursorContext {
  /** Keys from the top level down to the mapping the cursor is in (list items are implicit). */
  readonly path: readonly string[];
  /** `key` when typing a key, `value` when typing the value of `key`. */
  readonly position: 'key' | 'value';
  /** With `position: 'value'`: the key whose value is typed. */
  readonly key?: string;
  /** The partial word before the cursor and where it starts. */
  readonly word: string;
  readonly wordStart: number;
}

interface LineShape {
  /** Column where the key (or scalar) starts after indentation and `- ` markers. */
  readonly col: number;
  readonly dash: boolean;
  readonly key?: string;
  /** True when the key has nothing after the colon (its value follows on deeper lines). */
  readonly opens: boolean;
  readonly blank: boolean;
}

const KEY = /^((?:"[^"]*"|'[^']*'|[^\s#:{}[\],][^#:{}[\],]*?|[^\s#:{}[\],]+(?::[^\s#:{}[\],]+)+)):(?:\s|$)/;

function shape(line: string): LineShape {
  let i = 0;
  let dash = false;
  for (;;) {
    while (line[i] === ' ') i++;
    if (line[i] === '-' && (line[i + 1] === ' ' || line[i + 1] === undefined)) {
      dash = true;
      i++;
      continue;
    }
    break;
  }
  const rest = line.slice(i);
  if (rest.trim() === '' || rest.startsWith('#')) return { col: i, dash, opens: false, blank: !dash };
  const m = KEY.exec(rest);
  if (!m) return { col: i, dash, opens: false, blank: false };
  const after = rest.slice(m[0].length).replace(/#.*$/, '').trim();
  const key = m[1]!.replace(/^["']|["']$/g, '');
  return {
    col: i,
    dash,
    key,
    opens: after === '' || after === '|' || after === '>' || /^[|>][-+]?\d*$/.test(after),
    blank: false,
  };
}

/** The cursor context at `offset` in `text`. */
export function contextAt(text: string, offset: number): CursorContext {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const prefix = text.slice(lineStart, offset);
  const wordMatch = /[\w:/.\-]*$/.exec(prefix);
  const word = wordMatch ? wordMatch[0] : '';
  const wordStart = offset - word.length;

  const own = shape(prefix);
  const path: string[] = [];

  // Flow mappings opened on this line: `verify: { math: { ans|`.
  const flowKeys: string[] = [];
  let position: 'key' | 'value' = 'key';
  let key: string | undefined;
  const body = prefix.slice(own.col);
  const flow = scanFlow(body);
  if (flow) {
    flowKeys.push(...flow.keys);
    position = flow.position;
    key = flow.key;
  } else if (own.key !== undefined && body.length > own.key.length && /^[^:]*:\s/.test(body)) {
    position = 'value';
    key = own.key;
  }

  // Walk up: the nearest less-indented line that opens a mapping is the parent, and so on.
  let target = own.col;
  let lineEnd = lineStart - 1;
  while (lineEnd >= 0 && target > 0) {
    const s = text.lastIndexOf('\n', lineEnd - 1) + 1;
    const line = text.slice(s, lineEnd).replace(/\r$/, '');
    lineEnd = s - 1;
    const sh = shape(line);
    if (!sh.blank && sh.col < target) {
      if (sh.key !== undefined && sh.opens) path.unshift(sh.key);
      target = sh.col;
    }
    if (s === 0) break;
  }
  return { path: [...path, ...flowKeys], position, key, word, wordStart };
}

/** Keys of flow mappings still open at the end of `body`, and whether a key or value is typed. */
function scanFlow(body: string): { keys: string[]; position: 'key' | 'value'; key?: string } | null {
  if (!body.includes('{')) return null;
  const keys: string[] = [];
  let current: string | undefined;
  let pos: 'key' | 'value' = 'key';
  let token = '';
  let quote: string | null = null;
  for (const ch of body) {
    if (quote) {
      if (ch === quote) quote = null;
      token += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      token += ch;
    } else if (ch === ':') {
      current = token.trim().replace(/^["']|["']$/g, '');
      token = '';
      pos = 'value';
    } else if (ch === '{') {
      if (current !== undefined) keys.push(current);
      current = undefined;
      token = '';
      pos = 'key';
    } else if (ch === '}') {
      keys.pop();
      token = '';
      pos = 'key';
    } else if (ch === ',') {
      token = '';
      pos = 'key';
      current = undefined;
    } else token += ch;
  }
  if (keys.length === 0) return null;
  // `constraints:number_words` style ids contain colons: a colon not followed by space is part of the word.
  return pos === 'value' && current !== undefined
    ? { keys, position: 'value', key: current }
    : { keys, position: 'key' };
}
