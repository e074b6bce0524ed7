/**
 * Regular expressions that a task file or a client chooses (`match` in `regex` mode, `format`'s
 * `regex`, `state`'s `matches`), run in time linear in the text. JavaScript's engine backtracks:
 * `^(a+)+$` against thirty characters holds the thread for a minute, and `vtask serve` with it.
 * These run on RE2 (the `re2js` port), after a translation that keeps JavaScript's meaning with
 * the `u` flag: `.` stops at line terminators, `\s` is Unicode white space, `\u{...}` escapes,
 * `(?<name>...)` groups, `[^]`. What RE2 cannot run in linear time (lookahead, lookbehind,
 * backreferences) is refused with a reason, never run on the backtracking engine.
 */
import { RE2JS } from 're2js';
import { errorMessage } from '../../base/errorMessage';
import { at } from '../../util/must';
import { trimOldest } from '../../util/trimOldest';

/** A compiled pattern: `test` is true when it matches somewhere in the text, as RegExp#test. */
export interface LinearRegex {
  test(text: string): boolean;
}

/** The flags of JavaScript that keep their meaning (`u` is always on: patterns are Unicode). */
export type RegexFlags = Partial<Record<'i' | 'm' | 's', boolean>>;

/** JavaScript's `\s` (with `u`): ASCII white space plus Unicode's spaces and line terminators. */
const JS_SPACE = String.raw`\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`;
/** Everything else, as ranges: `\S` inside a class, where a negated set cannot go. */
const JS_NON_SPACE = String.raw`\x{0}-\x{8}\x{E}-\x{1F}\x{21}-\x{9F}\x{A1}-\x{167F}\x{1681}-\x{1FFF}\x{200B}-\x{2027}\x{202A}-\x{202E}\x{2030}-\x{205E}\x{2060}-\x{2FFF}\x{3001}-\x{FEFE}\x{FF00}-\x{10FFFF}`;
/** JavaScript's line terminators, where `.` stops and (with `m`) `^` and `$` match. */
const LINE_END = String.raw`\n\r\x{2028}\x{2029}`;
const ANY = String.raw`\x{0}-\x{10FFFF}`;

/** General categories by their long names, which JavaScript accepts and RE2 does not. */
const CATEGORIES: Record<string, string> = {
  Letter: 'L',
  Cased_Letter: 'L',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
};

class Unsupported extends Error {}

const UNSUPPORTED =
  'which cannot run in linear time (vtask runs patterns on RE2): match the text itself instead, or split the check into several verifiers';

/**
 * Why `source` cannot be used, or undefined when it can: not valid JavaScript, or a construct
 * the linear-time engine cannot run. `vtask check` reports it at the pattern.
 */
export function regexProblem(source: string, flags: RegexFlags = {}): string | undefined {
  const r = compileRegex(source, flags);
  return 'error' in r ? r.error : undefined;
}

const compiled = new Map<string, { regex: LinearRegex } | { error: string }>();
/** Compiled patterns kept (a verifier's pattern is checked against every sample of its task). */
const KEEP = 500;

/** Compiles a pattern for linear-time matching, or says why it cannot be. */
export function compileRegex(source: string, flags: RegexFlags = {}): { regex: LinearRegex } | { error: string } {
  const key = `${flags.i ? 'i' : ''}${flags.m ? 'm' : ''}${flags.s ? 's' : ''}/${source}`;
  let r = compiled.get(key);
  if (!r) {
    r = compileUncached(source, flags);
    trimOldest(compiled, KEEP - 1);
    compiled.set(key, r);
  }
  return r;
}

function compileUncached(source: string, flags: RegexFlags): { regex: LinearRegex } | { error: string } {
  try {
    // The pattern must be valid JavaScript first: that is what the format documents.
    new RegExp(source, `u${flags.i ? 'i' : ''}${flags.m ? 'm' : ''}${flags.s ? 's' : ''}`);
  } catch (e) {
    return { error: `is not a valid regular expression: ${errorMessage(e)}` };
  }
  let translated: string;
  try {
    translated = toRe2(source, flags);
  } catch (e) {
    if (e instanceof Unsupported) return { error: e.message };
    throw e;
  }
  try {
    // With `m`, RE2's `^` and `$` match at `\n` only, where JavaScript's also match at `\r`, U+2028, U+2029.
    const re = RE2JS.compile(translated, (flags.i ? RE2JS.CASE_INSENSITIVE : 0) | (flags.m ? RE2JS.MULTILINE : 0));
    return { regex: { test: (text) => re.test(text) } };
  } catch (e) {
    return {
      error: `cannot run on the linear-time regex engine: ${errorMessage(e).replace(/^error parsing regexp: /, '')}`,
    };
  }
}

/** Rewrites a JavaScript (`u`) pattern into RE2 syntax with the same meaning. */
function toRe2(src: string, flags: RegexFlags): string {
  let out = '';
  let inClass = false;
  let i = 0;
  while (i < src.length) {
    const c = at(src, i);
    if (c === '\\') {
      const [text, next] = escape(src, i, inClass);
      out += text;
      i = next;
    } else if (inClass) {
      if (c === ']') inClass = false;
      // A `[` in a class is literal in JavaScript; RE2 would read `[:alpha:]` as a POSIX class.
      out += c === '[' ? '\\[' : c;
      i++;
    } else if (c === '[') {
      // `[^]` is any character and `[]` none, in JavaScript; RE2 reads both as unclosed.
      const [text, length] = src.startsWith('[^]', i)
        ? [`[${ANY}]`, 3]
        : src.startsWith('[]', i)
          ? [`[^${ANY}]`, 2]
          : src[i + 1] === '^'
            ? ['[^', 2]
            : ['[', 1];
      inClass = length < 2 || text === '[^';
      out += text;
      i += length;
    } else if (c === '(' && src[i + 1] === '?') {
      const head = src.slice(i, i + 4);
      if (head.startsWith('(?=') || head.startsWith('(?!'))
        throw new Unsupported(`uses \`${head.slice(0, 3)}\` (lookahead), ${UNSUPPORTED}`);
      if (head === '(?<=' || head === '(?<!') throw new Unsupported(`uses \`${head}\` (lookbehind), ${UNSUPPORTED}`);
      // A named group: RE2 spells it `(?P<name>`.
      const named = head.startsWith('(?<');
      out += named ? '(?P<' : c;
      i += named ? 3 : 1;
    } else if (c === '.') {
      out += flags.s ? `[${ANY}]` : `[^${LINE_END}]`;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** One escape at `src[i]` in RE2 syntax, and where the pattern goes on. */
function escape(src: string, i: number, inClass: boolean): [string, number] {
  const c = src[i + 1] ?? '';
  switch (c) {
    case 's':
      return [inClass ? JS_SPACE : `[${JS_SPACE}]`, i + 2];
    case 'S':
      return [inClass ? JS_NON_SPACE : `[^${JS_SPACE}]`, i + 2];
    case 'b':
      return [inClass ? '\\x{8}' : '\\b', i + 2];
    case '0':
      return ['\\x{0}', i + 2];
    case 'c':
      return [`\\x{${((src.charCodeAt(i + 2) || 0) % 32).toString(16)}}`, i + 3];
    case 'u':
      return unicodeEscape(src, i);
    case 'k':
      throw new Unsupported(`uses \`\\k<...>\` (a backreference), ${UNSUPPORTED}`);
    case 'p':
    case 'P':
      return property(src, i, c);
    default:
      if (c >= '1' && c <= '9') throw new Unsupported(`uses \`\\${c}\` (a backreference), ${UNSUPPORTED}`);
      return [`\\${c}`, i + 2];
  }
}

/** `\uXXXX` (a surrogate pair of them as one code point) or `\u{X...}`, as RE2's `\x{...}`. */
function unicodeEscape(src: string, i: number): [string, number] {
  if (src[i + 2] === '{') {
    const end = src.indexOf('}', i);
    return [`\\x{${src.slice(i + 3, end)}}`, end + 1];
  }
  const hi = parseInt(src.slice(i + 2, i + 6), 16);
  const lo = src.startsWith('\\u', i + 6) ? parseInt(src.slice(i + 8, i + 12), 16) : NaN;
  if (hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff) {
    return [`\\x{${((hi - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000).toString(16)}}`, i + 12];
  }
  return [`\\x{${hi.toString(16)}}`, i + 6];
}

/** `\p{...}`: general categories and scripts, by the names RE2 knows. */
function property(src: string, i: number, c: string): [string, number] {
  const end = src.indexOf('}', i);
  const body = src.slice(i + 3, end);
  const eq = body.indexOf('=');
  const name = eq === -1 ? body : body.slice(eq + 1);
  const key = eq === -1 ? '' : body.slice(0, eq);
  if (key === 'Script_Extensions' || key === 'scx')
    throw new Unsupported(
      `uses \`\\${c}{${body}}\`, which the linear-time regex engine does not know: use \`\\${c}{Script=${name}}\``,
    );
  return [`\\${c}{${CATEGORIES[name] ?? name}}`, end + 1];
}
