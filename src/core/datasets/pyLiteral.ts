import { at } from '../util/must';
// Python literals, as open-instruct stores IFEval ground truth: its verifier reads the column
// with `ast.literal_eval`, which accepts `None`/`True`/`False` and single-quoted strings but not
// JSON's `null`/`true`. Only the subset such data uses: dicts, lists, tuples, strings, numbers.

/** Writes a JSON-like value as a Python literal that `ast.literal_eval` reads back. */
export function toPyLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`${v} has no Python literal`);
    return String(v);
  }
  if (typeof v === 'string') return pyString(v);
  if (Array.isArray(v)) return `[${v.map(toPyLiteral).join(', ')}]`;
  if (typeof v === 'object' && v !== null) {
    return `{${Object.entries(v)
      .map(([k, x]) => `${pyString(k)}: ${toPyLiteral(x)}`)
      .join(', ')}}`;
  }
  throw new Error(`a ${typeof v} has no Python literal`);
}

function pyString(s: string): string {
  // JSON's escapes are valid in Python string literals except that a Python literal needs
  // no escape for `/`; JSON.stringify never emits one, so its output is already Python.
  return JSON.stringify(s);
}

/** Reads a Python literal (the subset above). Throws with the offset on anything else. */
export function fromPyLiteral(text: string): unknown {
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at offset ${i} of the Python literal`);
  };
  const ws = (): void => {
    while (i < text.length && /\s/.test(at(text, i))) i++;
  };
  const value = (depth: number): unknown => {
    if (depth > 64) fail('nesting too deep');
    ws();
    const c = text[i];
    if (c === '[' || c === '(') return seq(c === '[' ? ']' : ')', depth);
    if (c === '{') return dict(depth);
    if (c === "'" || c === '"') return str();
    const word = /^(None|True|False)\b/.exec(text.slice(i, i + 6));
    if (word) {
      i += at(word, 1).length;
      return word[1] === 'None' ? null : word[1] === 'True';
    }
    const num = /^[-+]?(\d+\.?\d*(e[-+]?\d+)?|\.\d+(e[-+]?\d+)?|inf|nan)/i.exec(text.slice(i, i + 64));
    if (num) {
      i += num[0].length;
      return Number(num[0]);
    }
    return fail(c === undefined ? 'unexpected end' : `unexpected '${c}'`);
  };
  const seq = (close: string, depth: number): unknown[] => {
    i++;
    const out: unknown[] = [];
    for (;;) {
      ws();
      if (text[i] === close) {
        i++;
        return out;
      }
      out.push(value(depth + 1));
      ws();
      if (text[i] === ',') i++;
      else if (text[i] !== close) fail(`expected ',' or '${close}'`);
    }
  };
  const dict = (depth: number): Record<string, unknown> => {
    i++;
    const out: Record<string, unknown> = {};
    for (;;) {
      ws();
      if (text[i] === '}') {
        i++;
        return out;
      }
      const k = value(depth + 1);
      ws();
      if (text[i] !== ':') fail("expected ':'");
      i++;
      out[String(k)] = value(depth + 1);
      ws();
      if (text[i] === ',') i++;
      else if (text[i] !== '}') fail("expected ',' or '}'");
    }
  };
  const ESCAPES: Record<string, string> = {
    n: '\n',
    t: '\t',
    r: '\r',
    '\\': '\\',
    "'": "'",
    '"': '"',
    '0': '\0',
    b: '\b',
    f: '\f',
  };
  const str = (): string => {
    const q = at(text, i);
    i++;
    let out = '';
    while (i < text.length && text[i] !== q) {
      const ch = at(text, i);
      if (ch === '\\') {
        const e = text[i + 1] ?? '';
        if (e === 'u' || e === 'x') {
          const len = e === 'u' ? 4 : 2;
          const hex = text.slice(i + 2, i + 2 + len);
          if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) fail('bad escape');
          out += String.fromCharCode(parseInt(hex, 16));
          i += 2 + len;
        } else if (e === 'U') {
          const hex = text.slice(i + 2, i + 10);
          if (!/^[0-9a-fA-F]{8}$/.test(hex)) fail('bad escape');
          out += String.fromCodePoint(parseInt(hex, 16));
          i += 10;
        } else {
          out += ESCAPES[e] ?? '\\' + e;
          i += 2;
        }
      } else {
        out += ch;
        i++;
      }
    }
    if (text[i] !== q) fail('unterminated string');
    i++;
    return out;
  };
  const v = value(0);
  ws();
  if (i < text.length) fail('trailing text');
  return v;
}
