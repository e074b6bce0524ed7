// Patterns from task files and clients run in linear time (RE2), with JavaScript's meaning:
// the same verdicts as RegExp with `u` on ordinary patterns, a bounded time on a pattern that
// backtracks exponentially, and a clear refusal (at `vtask check`, `unavailable` at run time)
// for what RE2 cannot run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRegex, type RegexFlags } from '../../src/core/verifiers/text/regex';
import { verify } from '../../src/core/verifiers/verify';
import { parseTaskFile } from '../../src/core/taskfile/parse';

const task = { id: 't', prompt: 'p', messages: [{ role: 'user', content: 'p' }], meta: {}, dir: '.' };

function linear(pattern: string, flags: RegexFlags = {}): (text: string) => boolean {
  const r = compileRegex(pattern, flags);
  assert.ok('regex' in r, `${pattern}: ${'error' in r ? r.error : ''}`);
  return (text) => r.regex.test(text);
}

const SAME: [string, string[]][] = [
  ['^\\d{3}$', ['123', '1234', '12a', '123\n']],
  ['a.b', ['a-b', 'a\nb', 'a\rb', 'a\u2028b', 'a😀b']],
  ['^.$', ['😀', 'é', '\n']],
  ['^\\s+$', [' \t', '\u00a0', '\u2003', '\ufeff', '\u200b', 'x ']],
  ['^\\S+$', ['abc', 'a\u00a0b', 'a\u3000']],
  ['[\\s\\d]+x', ['1 2x', '\u00a0x', 'x']],
  ['^[\\Sx]+$', ['abc', 'a b', 'a\u00a0b', '😀é', 'a\u3000', 'x']],
  ['^[^\\S]+$', [' \u2003', 'a']],
  ['\\u{1F600}|\\uD83D\\uDE01', ['😀', '😁', ':)']],
  ['^\\u0041\\x42$', ['AB', 'ab']],
  ['^[^]{2}$', ['\n\n', 'ab', 'abc']],
  ['(?<year>\\d{4})-(\\d\\d)', ['2024-05', '24-05']],
  ['^\\p{Lu}\\p{Ll}+$', ['Paris', 'paris', 'Élan']],
  ['^\\p{Letter}+$', ['abc', 'ab1']],
  ['^\\p{Script=Greek}+$', ['αβγ', 'abc']],
  ['^\\P{L}+$', ['123', 'a1']],
  ['\\bcat\\b', ['the cat sat', 'concatenate', 'cat']],
  [
    '^<think>[\\s\\S]+</think>\\s*<answer>\\d+</answer>$',
    ['<think>a\nb</think>\n<answer>42</answer>', '<think></think><answer>42</answer>'],
  ],
  ['colou?r|\\/|[\\b]', ['color', 'a/b', '\b', 'colr']],
  ['^\\cJ$|^\\0$', ['\n', '\0', 'J']],
  ['[a\\-z]{2}', ['a-', '-z', 'bc']],
  ['^[[:alpha:]+$', ['[:a', 'hal', 'abc']],
];

test("ordinary patterns give the verdicts of JavaScript's RegExp with `u`", () => {
  for (const [pattern, texts] of SAME) {
    const re = linear(pattern);
    const js = new RegExp(pattern, 'u');
    for (const t of texts) assert.equal(re(t), js.test(t), `/${pattern}/u on ${JSON.stringify(t)}`);
  }
});

test('the flags i, m and s keep their JavaScript meaning', () => {
  const cases: [string, RegexFlags, string, string[]][] = [
    ['^paris$', { i: true }, 'i', ['PARIS', 'Paris', 'pari']],
    ['^straße$', { i: true }, 'i', ['STRAßE', 'strasse']],
    ['^b$', { m: true }, 'm', ['a\nb\nc', 'abc']],
    ['a.b', { s: true }, 's', ['a\nb', 'a\u2028b']],
  ];
  for (const [pattern, flags, js, texts] of cases) {
    const re = linear(pattern, flags);
    for (const t of texts)
      assert.equal(re(t), new RegExp(pattern, `u${js}`).test(t), `/${pattern}/${js} on ${JSON.stringify(t)}`);
  }
});

/** CPU milliseconds `f` takes (a bound on work, not on the machine's load). */
async function cpuMs(f: () => Promise<unknown>): Promise<number> {
  const t0 = process.cpuUsage();
  await f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

test('a pattern that backtracks exponentially in JavaScript ends in linear time in match, format and state', async () => {
  // 29 characters froze JavaScript's engine for about 50 s; each one more doubles it.
  const evil = '^(a+)+$';
  const text = 'a'.repeat(100_000) + '!';
  const trajectory = { messages: [], steps: [], final: '', turns: 1, state: { log: text }, stop: 'final' as const };
  for (const [verifier, response] of [
    [{ match: { answer: evil, mode: 'regex' } }, text],
    [{ format: { regex: evil } }, text],
    [{ state: { path: 'log', matches: evil } }, 'done'],
  ] as const) {
    let pass: boolean | undefined;
    const ms = await cpuMs(async () => (pass = (await verify(verifier, response, { task, trajectory })).pass));
    assert.equal(pass, false);
    assert.ok(ms < 1000, `${JSON.stringify(verifier)} took ${Math.round(ms)} ms of CPU`);
  }
  assert.equal((await verify({ format: { regex: evil } }, 'a'.repeat(100_000), { task })).pass, true);
});

test('lookaround and backreferences are refused: an error at the pattern in check, `unavailable` at run time', async () => {
  for (const [pattern, what] of [
    ['^(?=.*\\d).+$', /`\(\?=` \(lookahead\)/],
    ['(?<!x)y', /`\(\?<!` \(lookbehind\)/],
    ['(a)\\1', /`\\1` \(a backreference\)/],
    ['(?<q>a)\\k<q>', /`\\k<\.\.\.>` \(a backreference\)/],
  ] as const) {
    const v = await verify({ format: { regex: pattern } }, 'a1', { task });
    assert.equal(v.error, 'unavailable', v.reason);
    assert.equal(v.pass, false);
    assert.match(v.reason, what);
    assert.match(v.reason, /cannot run in linear time/);

    const text = `vtask: 1\ntasks:\n  - id: t\n    prompt: p\n    verify: { format: { regex: ${JSON.stringify(pattern)} } }\n`;
    const errors = parseTaskFile(text).issues.filter((i) => i.severity === 'error');
    assert.equal(errors.length, 1, JSON.stringify(errors));
    const e = errors[0]!;
    assert.match(e.message, what);
    assert.equal(text.slice(e.start, e.end), JSON.stringify(pattern));
  }
  const m = await verify({ match: { answer: '(?=a)a', mode: 'regex' } }, 'a', { task });
  assert.equal(m.error, 'unavailable');
  const text = `vtask: 1\ntasks:\n  - id: t\n    prompt: p\n    verify: { match: { answers: ["ok", "(?!x)y"], mode: regex } }\n`;
  const [issue] = parseTaskFile(text).issues.filter((i) => i.severity === 'error');
  assert.match(issue?.message ?? '', /^the pattern uses `\(\?!` \(lookahead\)/);
  assert.equal(text.slice(issue!.start, issue!.end), '"(?!x)y"');
  // A pattern JavaScript cannot compile is still reported as invalid.
  assert.match(
    parseTaskFile(text.replace('(?!x)y', '(')).issues[0]?.message ?? '',
    /the pattern is not a valid regular expression/,
  );
});
