/*
 * Language identification for `language:response_language` and the English checks of
 * `change_case:*`. IFEval calls Python's langdetect, which knows 55 languages and raises when it
 * finds nothing to go on (IFEval then counts the instruction as followed). vtask uses franc
 * (trigram profiles, pure JavaScript, about 360 kB minified) restricted to those same 55
 * languages, so it can never answer with a language langdetect could not, and treats franc's
 * "undetermined" (fewer than 10 characters, or no letters) as IFEval treats a langdetect error.
 *
 * Two corrections make it right where a trigram detector alone is not (DIFFERENCES.md):
 * - Short text: under SHORT letters, trigram scores are too close to tell English from its
 *   neighbours (`cat was too busy` scores Afrikaans 1.00, English 0.95; `Let me know if you
 *   would like any changes` scores Swahili first), so English wins when English function words make up a share of the words, or when it
 *   scores within ENGLISH_MARGIN of the best and every letter is unaccented a-z (French
 *   `Nous sommes allés au musée` scores English 0.94 too, but English needs no accents).
 * - Mixed text: each paragraph is detected on its own and the language with the most letters
 *   wins, so an English preamble around a short poem decides by size, as langdetect's
 *   whole-text n-gram count does, instead of by which trigrams happen to rank first.
 */
import { STOPWORDS } from './punkt';
import { at } from '../../../util/must';
import type { francAll as francAllFn } from 'franc' with { 'resolution-mode': 'import' };

/**
 * franc, loaded on the first detection: its profiles are 360 kB that loading the extension or
 * the CLI need not evaluate. It is an ES module; the bundles (esbuild) inline it, and Node
 * 20.19+ can require it directly.
 */
function francAll(...args: Parameters<typeof francAllFn>): ReturnType<typeof francAllFn> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('franc') as { francAll: typeof francAllFn }).francAll(...args);
}

/** ISO 639-3 (franc) → ISO 639-1 (IFEval) for langdetect's 55 languages. */
const TO_ISO1: Readonly<Record<string, string>> = {
  afr: 'af',
  arb: 'ar',
  bul: 'bg',
  ben: 'bn',
  cat: 'ca',
  ces: 'cs',
  cym: 'cy',
  dan: 'da',
  deu: 'de',
  ell: 'el',
  eng: 'en',
  spa: 'es',
  est: 'et',
  pes: 'fa',
  fin: 'fi',
  fra: 'fr',
  guj: 'gu',
  heb: 'he',
  hin: 'hi',
  hrv: 'hr',
  hun: 'hu',
  ind: 'id',
  ita: 'it',
  jpn: 'ja',
  kan: 'kn',
  kor: 'ko',
  lit: 'lt',
  lvs: 'lv',
  mkd: 'mk',
  mal: 'ml',
  mar: 'mr',
  npi: 'ne',
  nld: 'nl',
  nob: 'no',
  pan: 'pa',
  pol: 'pl',
  por: 'pt',
  ron: 'ro',
  rus: 'ru',
  slk: 'sk',
  slv: 'sl',
  som: 'so',
  sqi: 'sq',
  swe: 'sv',
  swh: 'sw',
  tam: 'ta',
  tel: 'te',
  tha: 'th',
  tgl: 'tl',
  tur: 'tr',
  ukr: 'uk',
  urd: 'ur',
  vie: 'vi',
  cmn: 'zh',
};
const ONLY = Object.keys(TO_ISO1);

/** Every ISO 639-1 code the detector can answer. */
export const DETECTABLE: ReadonlySet<string> = new Set(Object.values(TO_ISO1));

/** Below this many letters a text is short: trigram ranks are noisy there. */
const SHORT = 100;
/** On short text, English wins when its score is at least this share of the best score. */
const ENGLISH_MARGIN = 0.75;
/** On short text, English wins when at least this share of its words are English function words. */
const FUNCTION_WORD_SHARE = 0.3;
const WORD = /\p{L}+(?:'\p{L}+)*/gu;

const KANA = /[\u3040-\u30ff]/u;
// Letters with their combining marks: Indic vowel signs are marks, and carry as much as a letter.
const LETTER = /[\p{L}\p{M}]/gu;
const NON_ASCII_LETTER = /(?![a-zA-Z])\p{L}/u;
const PARAGRAPH_BREAK = /\n\s*\n/u;

function letterCount(text: string): number {
  return text.match(LETTER)?.length ?? 0;
}

function functionWordShare(text: string): number {
  const words = text.toLowerCase().match(WORD) ?? [];
  return words.length === 0 ? 0 : words.filter((w) => STOPWORDS.has(w)).length / words.length;
}

/** One block of text, by franc with the short-text correction. */
function detectBlock(text: string): string | null {
  const ranked = francAll(text, { only: ONLY });
  const [best, bestScore] = ranked[0] ?? ['und', 0];
  if (best === 'und') return null;
  let out = TO_ISO1[best] ?? null;
  if (out !== 'en' && letterCount(text) < SHORT) {
    const english = ranked.find(([code]) => code === 'eng');
    const close = english !== undefined && english[1] >= ENGLISH_MARGIN * bestScore && !NON_ASCII_LETTER.test(text);
    if (close || functionWordShare(text) >= FUNCTION_WORD_SHARE) out = 'en';
  }
  // franc decides CJK text by its most frequent script, so kanji-heavy Japanese reads as Chinese;
  // kana occur only in Japanese.
  if (out === 'zh' && KANA.test(text)) out = 'ja';
  return out;
}

/** Paragraphs vote with their letters; a single paragraph is detected whole. */
function detectText(text: string): string | null {
  const paragraphs = text.split(PARAGRAPH_BREAK).filter((p) => letterCount(p) > 0);
  if (paragraphs.length < 2) return detectBlock(text);
  const weight = new Map<string, number>();
  for (const p of paragraphs) {
    const code = detectBlock(p);
    if (code !== null) weight.set(code, (weight.get(code) ?? 0) + letterCount(p));
  }
  if (weight.size === 0) return detectBlock(text);
  if (weight.size === 1) return at([...weight.keys()], 0);
  return [...weight].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

const cache = new Map<string, string | null>();

/**
 * The ISO 639-1 code of the text's language, or null when it cannot be told (IFEval's
 * `LangDetectException`, which counts as a pass).
 */
export function detectLanguage(text: string): string | null {
  const key = text.length > 2048 ? text.slice(0, 2048) : text;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const out = detectText(key);
  if (cache.size > 256) cache.clear();
  cache.set(key, out);
  return out;
}

/** The script each detectable language is written in, as a Unicode script test. */
const SCRIPT: Readonly<Record<string, [string, RegExp]>> = (() => {
  const table: [string, RegExp, string][] = [
    ['Arabic', /\p{Script=Arabic}/u, 'ar fa ur'],
    ['Cyrillic', /\p{Script=Cyrillic}/u, 'bg mk ru uk'],
    ['Greek', /\p{Script=Greek}/u, 'el'],
    ['Hebrew', /\p{Script=Hebrew}/u, 'he'],
    ['Devanagari', /\p{Script=Devanagari}/u, 'hi mr ne'],
    ['Bengali', /\p{Script=Bengali}/u, 'bn'],
    ['Gujarati', /\p{Script=Gujarati}/u, 'gu'],
    ['Gurmukhi', /\p{Script=Gurmukhi}/u, 'pa'],
    ['Tamil', /\p{Script=Tamil}/u, 'ta'],
    ['Telugu', /\p{Script=Telugu}/u, 'te'],
    ['Kannada', /\p{Script=Kannada}/u, 'kn'],
    ['Malayalam', /\p{Script=Malayalam}/u, 'ml'],
    ['Thai', /\p{Script=Thai}/u, 'th'],
    ['Hangul', /\p{Script=Hangul}/u, 'ko'],
    ['Han or kana', /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u, 'ja zh'],
  ];
  const out: Record<string, [string, RegExp]> = {};
  for (const [name, re, codes] of table) for (const c of codes.split(' ')) out[c] = [name, re];
  for (const c of DETECTABLE) out[c] ??= ['Latin', /\p{Script=Latin}/u];
  return out;
})();

/**
 * When the text has letters but none in the script `want` is written in, that script's name:
 * text too short to identify still cannot be Korean if it is all Latin letters.
 */
export function missingScript(text: string, want: string): string | null {
  const script = SCRIPT[want];
  if (!script || letterCount(text) === 0 || script[1].test(text)) return null;
  return script[0];
}
