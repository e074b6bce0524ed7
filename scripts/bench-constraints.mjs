// Constraint checks per second over realistic responses. Bundles the checker with esbuild (as
// the extension and CLI do), then runs a mix of IFEval, IFBench, open-instruct and vtask
// instructions over responses of 100 to 600 words for a fixed time. Prints one JSON line.
import path from 'node:path';
import { loadBundled } from './bundle.mjs';

const root = path.resolve(import.meta.dirname, '..');
const { checkConstraints } = await loadBundled('src/core/verifiers/constraints/checkConstraints.ts');

const SENTENCES = [
  'The committee reviewed the proposal in detail and raised several concerns about the budget.',
  'However, most members agreed that the long-term benefits outweigh the initial costs.',
  'Why should we wait another year when the data already supports the change?',
  'Dr. Smith noted that similar programs in 2019 reduced costs by 12.5% within two years.',
  'In short, the plan is sound, practical and ready for a vote!',
  'Each department will report its progress every quarter, starting in March.',
];
const BULLETS = '\n\n* Lower costs over time\n* Better service for residents\n* Clear milestones';
function response(i) {
  const n = 6 + (i % 30);
  let s = '';
  for (let k = 0; k < n; k++) s += `${SENTENCES[(i + k) % SENTENCES.length]} `;
  if (i % 3 === 0) s += BULLETS;
  if (i % 4 === 0) s = `<<Budget Review>>\n\n${s}\n\nP.S. Thank you for reading.`;
  if (i % 5 === 0) s = s.toLowerCase();
  return s;
}
const RESPONSES = Array.from({ length: 64 }, (_, i) => response(i));

const SETS = [
  [
    { 'length_constraints:number_words': { relation: 'at least', num_words: 100 } },
    'punctuation:no_comma',
    'detectable_format:title',
  ],
  [
    { 'length_constraints:number_sentences': { relation: 'less than', num_sentences: 20 } },
    { 'detectable_content:postscript': { postscript_marker: 'P.S.' } },
  ],
  [
    { 'detectable_format:number_bullet_lists': { num_bullets: 3 } },
    { 'keywords:existence': { keywords: ['budget', 'vote'] } },
    { 'keywords:forbidden_words': { forbidden_words: ['very', 'really'] } },
  ],
  [
    { 'change_case:capital_word_frequency': { capital_frequency: 3, capital_relation: 'less than' } },
    'change_case:english_lowercase',
  ],
  [
    { 'language:response_language': { language: 'en' } },
    { 'keywords:letter_frequency': { letter: 'e', let_frequency: 20, let_relation: 'at least' } },
  ],
  [
    { 'count:word_count_range': { min_words: 100, max_words: 300 } },
    { 'words:repeats': { small_n: 10 } },
    { 'count:pronouns': { N: 3 } },
  ],
  [{ 'ratio:stop_words': { percentage: 50 } }, { 'sentence:keyword': { word: 'plan', N: 3 } }, 'format:title_case'],
  [
    { 'keywords:word_once': { keyword: 'committee' } },
    'count:count_unique',
    { 'vtask:max_chars': { max_chars: 4000 } },
  ],
  [
    { 'detectable_format:number_highlighted_sections': { num_highlights: 1 } },
    { 'detectable_format:multiple_sections': { section_spliter: 'SECTION', num_sections: 2 } },
    'detectable_format:json_format',
  ],
];

function run(mode, ms) {
  let checks = 0;
  let verdicts = 0;
  const t0 = performance.now();
  let i = 0;
  while (performance.now() - t0 < ms) {
    for (let j = 0; j < 50; j++, i++) {
      const set = SETS[i % SETS.length];
      checkConstraints(RESPONSES[(i * 7) % RESPONSES.length], { instructions: set, mode });
      checks += set.length;
      verdicts++;
    }
  }
  const s = (performance.now() - t0) / 1000;
  return { checks_per_s: Math.round(checks / s), verdicts_per_s: Math.round(verdicts / s) };
}

run('strict', 500); // warm up
const strict = run('strict', 3000);
const loose = run('loose', 3000);
const avgChars = Math.round(RESPONSES.reduce((a, r) => a + r.length, 0) / RESPONSES.length);
console.log(
  JSON.stringify({
    bench: 'constraints',
    avg_response_chars: avgChars,
    strict_checks_per_s: strict.checks_per_s,
    strict_verdicts_per_s: strict.verdicts_per_s,
    loose_checks_per_s: loose.checks_per_s,
    loose_verdicts_per_s: loose.verdicts_per_s,
    node: process.version,
  }),
);
