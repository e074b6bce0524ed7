/*
 * Language identification for `language:response_language` and the English checks of
 * `change_case:*`. IFEval calls Python's langdetect, which knows 55 languages and raises when it
 * finds nothing to go on (IFEval then counts the instruction as followed). vtask uses franc
 * (trigram profiles, pure JavaScript, about 360 kB minified) restricted to those same 55
 * languages, so it can never answer with a language langdetect could not, and treats franc's
 * "undetermined" (fewer than 10 characters, or no letters) as IFEval treats a langdetect error.
 */
import type { franc as francFn } from 'franc' with { 'resolution-mode': 'import' };

// franc is an ES module; the bundles (esbuild) inline it, and Node 20.19+ can require it directly.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { franc } = require('franc') as { franc: typeof francFn };

/** ISO 639-3 (franc) → ISO 639-1 (IFEval) for langdetect's 55 languages. */
const TO_ISO1: Readonly<Record<string, string>> = {
  afr: 'af', arb: 'ar', bul: 'bg', ben: 'bn', cat: 'ca', ces: 'cs', cym: 'cy', dan: 'da', deu: 'de', ell: 'el',
  eng: 'en', spa: 'es', est: 'et', pes: 'fa', fin: 'fi', fra: 'fr', guj: 'gu', heb: 'he', hin: 'hi', hrv: 'hr',
  hun: 'hu', ind: 'id', ita: 'it', jpn: 'ja', kan: 'kn', kor: 'ko', lit: 'lt', lvs: 'lv', mkd: 'mk', mal: 'ml',
  mar: 'mr', npi: 'ne', nld: 'nl', nob: 'no', pan: 'pa', pol: 'pl', por: 'pt', ron: 'ro', rus: 'ru', slk: 'sk',
  slv: 'sl', som: 'so', sqi: 'sq', swe: 'sv', swh: 'sw', tam: 'ta', tel: 'te', tha: 'th', tgl: 'tl', tur: 'tr',
  ukr: 'uk', urd: 'ur', vie: 'vi', cmn: 'zh',
};
const ONLY = Object.keys(TO_ISO1);

/** Every ISO 639-1 code the detector can answer. */
export const DETECTABLE: ReadonlySet<string> = new Set(Object.values(TO_ISO1));

const KANA = /[\u3040-\u30ff]/u;

const cache = new Map<string, string | null>();

/**
 * The ISO 639-1 code of the text's language, or null when it cannot be told (IFEval's
 * `LangDetectException`, which counts as a pass).
 */
export function detectLanguage(text: string): string | null {
  const key = text.length > 4096 ? text.slice(0, 4096) : text;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const code = franc(key, { only: ONLY });
  let out = code === 'und' ? null : (TO_ISO1[code] ?? null);
  // franc decides CJK text by its most frequent script, so kanji-heavy Japanese reads as Chinese;
  // kana occur only in Japanese.
  if (out === 'zh' && KANA.test(key)) out = 'ja';
  if (cache.size > 256) cache.clear();
  cache.set(key, out);
  return out;
}
