// Regex verdicts per second over realistic responses: `format` and `match` (mode `regex`)
// with typical patterns, through `verify` bundled as the CLI ships it. Prints one JSON line.
import { loadBundled } from './bundle.mjs';

const { verify } = await loadBundled('src/core/verifiers/verify.ts');

const PARAGRAPH =
  'Let us work through the problem step by step. First we note that the sum of the first n odd numbers is n squared, so for n = 12 we get 144. ';
function response(i) {
  const body = PARAGRAPH.repeat(2 + (i % 8));
  return `<think>${body}</think>\n<answer>${100 + i}</answer>`;
}
const RESPONSES = Array.from({ length: 64 }, (_, i) => response(i));
const VERIFIERS = [
  { format: { regex: '^<think>[\\s\\S]+</think>\\s*<answer>\\d+</answer>$' } },
  { format: { think: 'required', regex: '<answer>[^<]{1,20}</answer>' } },
  { match: { answer: '^\\s*\\d{3}\\s*$', mode: 'regex', tag: 'answer' } },
  { match: { answers: ['^1[0-4]\\d$', '^16\\d$'], mode: 'regex', tag: 'answer' } },
];
const task = { id: 'bench', prompt: '', messages: [], meta: {}, dir: '.' };

async function run(ms) {
  let verdicts = 0;
  const t0 = performance.now();
  let i = 0;
  while (performance.now() - t0 < ms) {
    for (let j = 0; j < 50; j++, i++) {
      await verify(VERIFIERS[i % VERIFIERS.length], RESPONSES[(i * 7) % RESPONSES.length], { task });
      verdicts++;
    }
  }
  return Math.round(verdicts / ((performance.now() - t0) / 1000));
}

await run(500); // warm up
const perSecond = await run(3000);
const avgChars = Math.round(RESPONSES.reduce((a, r) => a + r.length, 0) / RESPONSES.length);
console.log(
  JSON.stringify({ bench: 'regex', avg_response_chars: avgChars, verdicts_per_s: perSecond, node: process.version }),
);
