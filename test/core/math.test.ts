// Unit tests of the math verifier's modules, and hostile input: every check must end quickly
// with a sensible verdict, whatever the response contains.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { goldText, parseAnswerText, parseGold } from '../../src/core/verifiers/math/answer';
import { compareNodes, type CompareOptions } from '../../src/core/verifiers/math/compare';
import { stepBudget } from '../../src/core/verifiers/math/evaluate';
import { extractAnswer, findBoxes, lastNumber, stripDelimiters } from '../../src/core/verifiers/math/extract';
import { checkMath, clearParsedGolds, type MathParams } from '../../src/core/verifiers/math/checkMath';
import { parseMath, ParseError } from '../../src/core/verifiers/math/latex';
import { prepare } from '../../src/core/verifiers/math/normalize';
import { disposeMathPool } from '../../src/core/verifiers/math/pool';
import * as R from '../../src/core/verifiers/math/rational';
import { mathKind } from '../../src/core/verifiers/math';

after(async () => {
  await disposeMathPool();
});

function same(gold: string, pred: string, opts: CompareOptions = {}): boolean | 'undecided' {
  const g = parseAnswerText(gold);
  const p = parseAnswerText(pred, g.ok && (g.node.t === 'list' || g.node.t === 'set'));
  assert.ok(g.ok, `gold ${gold} did not parse`);
  assert.ok(p.ok, `pred ${pred} did not parse`);
  return compareNodes(g.node, p.node, { ...opts, steps: stepBudget(2_000_000) }).equal;
}

async function verdictOf(response: string, answer: string | number, extra = {}) {
  return checkMath(response, { answer }, undefined, extra);
}

void describe('rational', () => {
  void test('exact arithmetic and size caps', () => {
    const half = R.rat(1n, 2n) as R.Rational;
    assert.deepEqual(R.add(half, half), R.ONE);
    assert.equal(R.powInt(R.rat(2n) as R.Rational, 10n ** 10n), null, '2^(10^10) is refused, not computed');
    assert.equal(R.intRoot(117n * 117n, 2), 117n);
    assert.equal(R.intRoot(118n, 2), null);
    assert.equal(
      R.toNumber(R.rat(1n, 2n ** 2000n) as R.Rational) > 0,
      false,
      'underflows to 0 in floats, which is why exact paths exist',
    );
  });
});

void describe('extract', () => {
  void test('last box, brace-matched, nested, and \\boxed 5', () => {
    assert.equal(
      extractAnswer('so \\boxed{\\frac{1}{2}} then \\boxed{\\frac{\\sqrt{3}}{2}}')?.text,
      '\\frac{\\sqrt{3}}{2}',
    );
    assert.equal(extractAnswer('the answer is \\boxed 5.')?.text, '5');
    assert.equal(findBoxes('\\fbox{7}')[0]?.content, '7');
    assert.equal(extractAnswer('\\boxed{1} and \\boxed{2}')?.parts?.length, 2);
    assert.equal(
      extractAnswer('\\boxed{1} long reasoning in between that is not a connector at all \\boxed{2}')?.parts?.length,
      1,
    );
  });
  void test('answer lines, bold, and words after the number', () => {
    assert.equal(extractAnswer('blah\nThe final answer is $28\\%$. I hope it is correct.')?.text, '28\\%');
    assert.equal(extractAnswer('Final Answer: The volume is 120 cubic units.')?.text, '120 cubic units');
    assert.equal(extractAnswer('So it is **73**')?.text, '73');
    assert.equal(extractAnswer('#### 1,234')?.text, '1,234');
    const late = extractAnswer('first \\boxed{200} then more. Final Answer: The final answer is $10,455$.');
    assert.equal(late?.source, 'answer line', 'a final-answer line after the last box wins');
  });
  void test('last number, not glued to letters', () => {
    assert.equal(lastNumber('the number is not 10 which is 1,000.99€'), '1,000.99');
    assert.equal(lastNumber('AZYUK2A'), null);
    assert.equal(lastNumber('P = 2/3 so'), '2/3');
  });
});

void describe('normalize and parse', () => {
  const value = (s: string): string => {
    const r = parseAnswerText(s);
    assert.ok(r.ok, `${s}: ${r.ok ? '' : r.error}`);
    return JSON.stringify(r.node, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
  };
  void test('thousands separators and decimal commas', () => {
    assert.equal(value('1,234'), value('1234'));
    assert.equal(value('1 234'), value('1234'));
    assert.equal(value('1{,}234'), value('1234'));
    assert.equal(value('11,\\! 111,\\! 111,\\! 100'), value('11111111100'));
    assert.ok(same('1.5', '1,5'));
    assert.ok(same('0.111', '0,111'));
    assert.equal(parseAnswerText('1, 5').ok && (parseAnswerText('1, 5') as { node: { t: string } }).node.t, 'list');
  });
  void test('LaTeX forms', () => {
    for (const [a, b] of [
      ['\\frac{1}{2}', '\\dfrac12'],
      ['\\sqrt{2}', '\\sqrt2'],
      ['\\left(\\frac{1}{3}\\right)', '\\tfrac{1}{3}'],
      ['2 \\cdot 3', '2\\times 3'],
      ['x^{2}', 'x^2'],
      ['90^\\circ', '90'],
      ['\\$5', '5'],
      ['\\text{13}', '13'],
      ['15\\mbox{ cm}^2', '15'],
    ])
      assert.ok(same(a as string, b as string), `${a} vs ${b}`);
  });
  void test('refuses what it cannot read', () => {
    assert.throws(() => parseMath(prepare('\\frac{1}{')), ParseError);
    assert.throws(() => parseMath(prepare('Therefore the answer')), ParseError);
    assert.throws(() => parseMath(prepare('('.repeat(500) + '1' + ')'.repeat(500))), ParseError);
    // A refusal is an Error with its message, made without a stack (it is the common case).
    assert.throws(
      () => parseMath(prepare('Therefore the answer')),
      (e: unknown) => e instanceof Error && e.name === 'ParseError' && e.message === 'prose, not an answer' && !e.stack,
    );
    assert.deepEqual(parseAnswerText('Therefore the answer'), { ok: false, error: 'prose, not an answer' });
  });
  void test('gold answers read like predictions', () => {
    assert.ok(parseGold('$\\boxed{1}\\boxed{2}$').parsed.ok);
    assert.equal(parseGold('\\boxed{004} and later \\boxed{004}').text, '004');
  });
  void test('plain integers and empty answers read as the full parser reads them', () => {
    // What parseAnswerText gives without its shortcuts: every pass of `prepare`, then the parser.
    const full = (s: string, preferList: boolean): unknown => {
      try {
        const { node, units } = parseMath(prepare(stripDelimiters(s), { preferList }));
        return { ok: true, node, units };
      } catch (e) {
        assert.ok(e instanceof ParseError);
        return { ok: false, error: e.message };
      }
    };
    const digits300 = '9'.repeat(300);
    for (const s of ['0', '7', '007', '42', ' 72 ', '$72$', '\\(72\\)', '-5', '1234567890123456789012345', digits300])
      for (const preferList of [false, true])
        assert.deepEqual(parseAnswerText(s, preferList), full(s, preferList), `${s} (preferList ${preferList})`);
    for (const s of ['', '   ', '$$', '\\[ \\]'])
      assert.deepEqual(parseAnswerText(s), { ok: false, error: 'empty answer' }, JSON.stringify(s));
    // A base changes how integers read: the shortcut never applies there.
    const inBase = parseAnswerText('11', false, 2);
    assert.ok(inBase.ok);
    assert.notDeepEqual(inBase.node, (parseAnswerText('11') as { node: unknown }).node);
  });
});

void describe('compare', () => {
  void test('exact rationals, not floats', () => {
    assert.equal(same('\\frac{1}{2^{99}}', '\\frac{1}{2^{98}}'), false);
    assert.equal(same('\\frac{2^{2005}+1}{3 \\cdot 2^{2006}}', '\\frac{1}{3 \\cdot 2^{2006}}'), false);
    assert.equal(same('\\frac{1}{2004!}', '\\frac{1}{2006!}'), false);
    assert.equal(same('18', '18.0'), true);
  });
  void test('tolerance only for decimal approximations', () => {
    assert.equal(same('\\frac{2}{3}', '0.67'), false);
    assert.equal(same('\\pi', '3.14'), false);
    assert.equal(same('\\frac{1}{12}', '0.0833333333333333'), true);
    assert.equal(same('\\frac{2}{3}', '0.67', { tolerance: 0.01 }), true);
    assert.equal(same('\\frac{1}{3}', '0.3333', { precision: 4 }), true);
  });
  void test('exact numbers are equal only when exactly equal: no tolerance between integers', async () => {
    // 1000001 is within a relative 1e-6 of 1000000; the tolerance is for decimal approximations only.
    assert.equal(same('1000000', '1000001'), false);
    assert.equal(same('1000000', '1000001', { tolerance: 0.01 }), false);
    const v = await verdictOf('\\boxed{1000001}', 1000000);
    assert.equal(v.pass, false);
    assert.equal(v.score, 0);
    assert.equal(v.details.method, 'exact');
  });
  void test('values with no exact form: near is not equal, signs count, undefined is said', () => {
    // Written exactly, so compared to float precision: 355/113 is within 1e-7 of π, 99/70 within 1e-4 of √2.
    assert.equal(same('\\pi', '\\frac{355}{113}'), false);
    assert.equal(same('\\sqrt{2}', '\\frac{99}{70}'), false);
    assert.equal(same('\\sqrt{2}', '\\frac{2}{\\sqrt{2}}'), true);
    // Too large for floats: compared by logarithm, and the sign still tells them apart.
    assert.equal(same('e^{2000}', '-e^{2000}'), false);
    assert.equal(same('e^{2000}', 'e^{1000} \\cdot e^{1000}'), true);
    // Zero against a sum that is only nearly zero.
    assert.equal(same('0', '\\sqrt{2}-\\frac{99}{70}'), false);
    assert.equal(same('0', '\\sqrt{2}\\cdot\\sqrt{2}-2'), true);
    const g = parseAnswerText('\\log(-1)');
    const p = parseAnswerText('\\log(-2)');
    assert.ok(g.ok && p.ok);
    assert.deepEqual(compareNodes(g.node, p.node, { steps: stepBudget(2_000_000) }), {
      equal: 'undecided',
      method: 'numeric',
      note: 'a value is undefined',
    });
  });
  void test('symbolic equivalence at random points, respecting domains', () => {
    assert.equal(same('\\sqrt{1/n}', '\\frac{1}{\\sqrt{n}}'), true);
    assert.equal(same('\\tan^2(y)+1', '\\sec^2(y)'), true);
    assert.equal(same('\\sqrt{x^2}', 'x'), false, 'negative points tell |x| from x');
    assert.equal(same('(a+5)(b+2)', '(+5)(b+2)'), false);
  });
  void test('sets, intervals, tuples, matrices', () => {
    assert.equal(same('\\{1, 2, 3\\}', '\\{3, 2, 1\\}'), true);
    assert.equal(same('(1, 2)', '(2, 1)'), false);
    assert.equal(same('[0, 1)', '(0, 1)'), false);
    assert.equal(same('(-\\infty, 2] \\cup (3, \\infty)', '(3, \\infty) \\cup (-\\infty, 2]'), true);
    assert.equal(
      same('\\begin{pmatrix}1 & 2\\\\3 & 4\\end{pmatrix}', '\\begin{bmatrix}1 & 2\\\\3 & 4\\end{bmatrix}'),
      true,
    );
    assert.equal(
      same('\\begin{pmatrix}1 & 2\\\\3 & 4\\end{pmatrix}', '\\begin{pmatrix}1 & 2\\\\3 & 5\\end{pmatrix}'),
      false,
    );
    assert.equal(same('\\pm 2', '\\{-2, 2\\}'), true);
  });
  void test('equations, assignments, inequalities', () => {
    assert.equal(same('x = 3', '3'), true);
    assert.equal(same('3', 'x = 3'), true);
    assert.equal(same('a + 3z = 0', '0'), false);
    assert.equal(same('2x+4y-3=0', 'y=-\\frac{1}{2}x+\\frac{3}{4}'), true);
    assert.equal(same('x \\le 5', '5 \\ge x'), true);
    assert.equal(same('x < 1', '-x > -1'), true);
    assert.equal(same('x > 5', 'x < 5'), false);
    assert.equal(same('-2 \\le x \\le 7', 'x \\in [-2, 7]'), true);
  });
  void test('percent', () => {
    assert.equal(same('28\\%', '28'), true);
    assert.equal(same('50\\%', '0.5'), true);
    assert.equal(same('50', '0.5'), false);
  });
});

void describe('checkMath verdicts', () => {
  void test('reasons a person can act on', async () => {
    const ok = await verdictOf('48 + 24 = 72, so the answer is \\boxed{72}.', '72');
    assert.equal(ok.pass, true);
    assert.equal(ok.details.source, 'boxed');
    const bad = await verdictOf('\\boxed{71}', '72');
    assert.equal(bad.pass, false);
    assert.match(bad.reason, /extracted 71 from \\boxed\{71\}, expected 72/);
    const unparsed = await verdictOf('\\boxed{\\frac{1}{}', '1');
    assert.match(unparsed.reason, /could not be parsed/);
    assert.equal(unparsed.details.unparsed, true);
    const hedge = await verdictOf('\\boxed{1}, \\boxed{2}, \\boxed{3}', '2');
    assert.match(hedge.reason, /^hedged: boxed 3 different values/);
    const list = await verdictOf('\\boxed{1}, \\boxed{2}, \\boxed{3}', '1, 2, 3');
    assert.equal(list.pass, true, 'for a list gold the boxes together are the answer');
    const none = await verdictOf('I do not know.', '3');
    assert.match(none.reason, /no answer found|could not be parsed \(prose/);
  });
  void test('the kind exposes check, and answers/tolerance work', async () => {
    assert.equal(typeof mathKind.check, 'function');
    const v = await checkMath('\\boxed{0.67}', { answers: ['1/2', '2/3'], tolerance: 0.01 });
    assert.equal(v.pass, true);
    assert.equal(v.details.method, 'tolerance');
  });
  void test('an unbundled run or a slow comparison ends with an error verdict, never a hang', async () => {
    const v = await verdictOf('\\boxed{\\sqrt{-1-x^2}}', '\\sqrt{-2-x^2}', { timeoutMs: 1 });
    assert.equal(v.pass, false);
    assert.ok(v.error === 'timeout' || v.error === 'refused', `got ${v.error}: ${v.reason}`);
  });
});

void describe('hostile input ends quickly with a sensible verdict', () => {
  const quick = async (response: string, gold: string, limitMs = 4000) => {
    const t0 = Date.now();
    const v = await verdictOf(response, gold);
    const ms = Date.now() - t0;
    assert.ok(ms < limitMs, `took ${ms} ms`);
    assert.equal(typeof v.reason, 'string');
    assert.ok(!v.reason.includes('\n'), 'reason is one line');
    return v;
  };
  void test('a 5 MB answer', async () => {
    const big = 'lorem ipsum 12 '.repeat(350_000);
    assert.equal((await quick(big + ' \\boxed{72}', '72')).pass, true);
    assert.equal((await quick(big, '72')).pass, false);
    assert.equal((await quick('\\boxed{' + '1'.repeat(5_000_000) + '}', '72')).pass, false);
  });
  void test('binary garbage and markup', async () => {
    let garbage = '';
    for (let i = 0; i < 20_000; i++) garbage += String.fromCharCode((i * 7919) % 65536);
    assert.equal((await quick(garbage, '3')).pass, false);
    assert.equal((await quick('<script>alert(1)</script>', '1')).pass, true, 'the last number is 1');
    assert.equal((await quick('\\boxed{<script>alert(1)</script>}', '1')).pass, false);
  });
  void test('unbalanced and deeply nested LaTeX', async () => {
    assert.equal((await quick('\\boxed{\\frac{1}{2', '1/2')).pass, false);
    const v = await quick('\\boxed{' + '\\frac{'.repeat(10_000) + '1', '1');
    assert.match(v.reason, /could not be parsed/);
    const parens = await quick('\\boxed{' + '('.repeat(5000) + '1' + ')'.repeat(5000) + '}', '1');
    assert.match(parens.reason, /could not be parsed/);
    // Unboxed, the spec's last-number rule applies; what matters is that it ends quickly.
    await quick('('.repeat(5000) + '1' + ')'.repeat(5000), '2');
  });
  void test('towers, factorial bombs and huge exponents', async () => {
    assert.equal((await quick('\\boxed{10^{10^{10^{10}}}}', '10^{10^{10^{10}}}')).pass, true);
    const tower = await quick('\\boxed{10^{10^{10^{10}}}+1}', '10^{10^{10^{10}}}', 8000);
    assert.equal(tower.pass, false);
    assert.equal((await quick('\\boxed{1000000!}', '1000000!')).pass, true);
    assert.equal((await quick('\\boxed{1000000!}', '999999!')).pass, false);
    assert.equal((await quick('\\boxed{2^{10^{10}}}', '2^{10^{10}+1}')).pass, false);
    assert.equal((await quick('\\boxed{2^{2^{20}}}', '2^{2^{20}}')).pass, true);
    assert.equal((await quick('\\boxed{9^{9^{9}}}', '9^{387420489}')).pass, true);
  });
});

/** The verdict on a response as a model writes it, against a gold answer and task parameters. */
async function passes(
  response: string,
  answer: string,
  params: Omit<MathParams, 'answer' | 'answers'> = {},
): Promise<boolean> {
  return (await checkMath(response, { answer, ...params })).pass;
}

void describe('common answer shapes read as a person reads them', () => {
  void test('named values belong to their names; an unnamed list is read in the gold order', async () => {
    assert.equal(await passes('Solving the system, $\\boxed{a_1 = 7, a_2 = 5}$', 'a_1 = 5, a_2 = 7'), false);
    assert.equal(
      await passes('Solving the system, $\\boxed{a_2 = 7, a_1 = 5}$', 'a_1 = 5, a_2 = 7'),
      true,
      'the order of the names is free',
    );
    assert.equal(await passes('So $\\boxed{f(1) = 5, f(2) = 2}$.', 'f(1) = 2, f(2) = 5'), false);
    assert.equal(await passes('So $\\boxed{f(2) = 5,\\ f(1) = 2}$.', 'f(1) = 2, f(2) = 5'), true);
    assert.equal(await passes('Therefore the terms are $\\boxed{19, 2}$.', 'a_3 = 2, a_{37} = 19'), false);
    assert.equal(await passes('Therefore the terms are $\\boxed{2, 19}$.', 'a_3 = 2, a_{37} = 19'), true);
    assert.equal(
      await passes('The roots are $\\boxed{2, 1}$.', 'x = 1, x = 2'),
      true,
      'one unknown with several values is a set',
    );
    const v = await checkMath('$\\boxed{a_2 = 5}$', { answer: 'a_1 = 5' });
    assert.match(v.reason, /expected a value for a_1, got one for a_2/);
  });
  void test('repeating decimals are exact rationals', async () => {
    assert.equal(await passes('Hence $x = \\boxed{0.\\overline{3}}$', '0'), false);
    assert.equal(await passes('Hence $x = \\boxed{0.\\overline{3}}$', '\\frac{1}{3}'), true);
    assert.equal(await passes('so the answer is $\\boxed{2.\\overline{3}}$', '6'), false);
    assert.equal(await passes('so the answer is $\\boxed{2.\\overline{3}}$', '7/3'), true);
    assert.equal(await passes('The fraction is $\\boxed{\\frac{4}{11}}$.', '0.\\overline{36}'), true);
    assert.equal(await passes('The fraction is $\\boxed{0}$.', '0.\\overline{36}'), false);
    assert.equal(await passes('$\\boxed{0.1\\overline{6}}$', '1/6'), true);
    assert.equal(await passes('$\\boxed{0.1\\dot{6}}$', '1/6'), true);
    assert.equal(await passes('$\\boxed{0.\\dot{1}4285\\dot{7}}$', '1/7'), true);
    assert.equal(await passes('$\\boxed{0.\\bar{3}}$', '1/3'), true);
    assert.equal(await passes('$\\boxed{0.(36)}$', '4/11'), true);
    assert.equal(await passes('$\\boxed{0.(36)}$', '0'), false);
    assert.equal(await passes('The probability is $\\boxed{0.1666\\ldots}$', '1/6'), true);
    assert.equal(await passes('So x = 0.142857142857...', '1/7'), true);
    assert.equal(prepare('3.14\\ldots'), '3.14\\ldots', 'digits that repeat nothing stay as written');
  });
  void test('mixed numbers are sums, not products', async () => {
    assert.equal(await passes('so the answer is $\\boxed{3\\frac{1}{2}}$', '3/2'), false);
    assert.equal(await passes('so the answer is $\\boxed{3\\frac{1}{2}}$', '7/2'), true);
    assert.equal(await passes('so the answer is $\\boxed{3\\frac12}$', '\\frac{7}{2}'), true);
    assert.equal(await passes('It takes $\\boxed{2.25}$ hours.', '2\\frac{1}{4}'), true);
    assert.equal(await passes('It takes $\\boxed{9/4}$ hours.', '2\\frac{1}{4}'), true);
    assert.equal(await passes('The answer is 3 1/2.', '7/2'), true);
    assert.equal(await passes('$\\boxed{-3\\frac{1}{2}}$', '-7/2'), true);
    assert.equal(
      await passes('$\\boxed{2\\frac{\\pi}{3}}$', '\\frac{2\\pi}{3}'),
      true,
      'a coefficient of a symbolic fraction still multiplies',
    );
  });
  void test('numerals in another base compare in that base', async () => {
    assert.equal(await passes('In binary this is $\\boxed{11}$.', '1011_2'), false);
    assert.equal(await passes('In binary this is $\\boxed{1011_{2}}$.', '1011_2'), true);
    assert.equal(await passes('In binary this is $\\boxed{\\text{1011}_2}$.', '1011_2'), true);
    assert.equal(
      await passes('The base-5 form is $\\boxed{204}$.', '204_5'),
      false,
      'a bare numeral is base 10 unless the task says otherwise',
    );
    assert.equal(await passes('The base-5 form is $\\boxed{204}$.', '204_5', { base: 5 }), true);
    assert.equal(await passes('The base-5 form is $\\boxed{204_5}$.', '204', { base: 5 }), true);
    assert.equal(
      await passes('The base-5 form is $\\boxed{54}$.', '204', { base: 5 }),
      false,
      '54 is not a base-5 numeral',
    );
    const v = await checkMath('$\\boxed{11}$', { answer: '1011_2' });
    assert.match(v.reason, /expected a base-2 numeral/);
    const hedge = await checkMath('The answer is $\\boxed{204_5}$ or $\\boxed{205_5}$.', { answer: '204_5' });
    assert.match(
      hedge.reason,
      /^hedged: boxed 2 different values \("205_5", 204_5\)/,
      'a box that cannot be read is still another answer',
    );
  });
  void test('numbers side by side are never multiplied; percent only as the gold allows', async () => {
    assert.equal(await passes('the answer is $\\boxed{2 3}$', '6'), false);
    assert.equal(await passes('the answer is $\\boxed{\\frac{37}{56}1}$', '\\frac{37}{56}'), false);
    assert.equal(await passes('the answer is $\\boxed{2\\text{3}}$', '6'), false);
    assert.equal(await passes('the answer is $\\boxed{1\\,000}$', '1000'), true);
    assert.equal(await passes('the answer is $\\boxed{1{,}000}$', '1000'), true);
    assert.equal(await passes('The rate is $\\boxed{0.25\\%}$.', '0.25'), false);
    assert.equal(await passes('The rate is $\\boxed{25\\%}$.', '0.25'), true);
    assert.equal(await passes('The discount is $\\boxed{28\\%}$.', '28'), true);
    assert.equal(await passes('The rate is $\\boxed{0.25}$.', '0.25\\%'), true, 'a percent gold allows its number');
  });
  void test('one-letter units in \\text{} and \\mbox{} are dropped in gold and response', async () => {
    assert.equal(await passes('The side is $\\boxed{12 \\text{ m}}$.', '12'), true);
    assert.equal(await passes('The side is $\\boxed{5}$ metres.', '5\\text{ m}'), true);
    assert.equal(await passes('It falls for $\\boxed{3\\mbox{ s}}$.', '3\\text{ s}'), true);
    assert.equal(await passes('$\\boxed{2}$', '2\\text{ L}'), true);
    assert.equal(await passes('$\\boxed{5}$', '5\\,\\text{m}'), true);
    assert.equal(await passes('The area is $\\boxed{20\\text{ m}^{2}}$.', '20'), true);
    assert.equal(await passes('The side is $\\boxed{13 \\text{ m}}$.', '12'), false);
    assert.equal(await passes('The speed is $\\boxed{4\\,\\text{m}\\cdot\\text{s}^{-1}}$.', '4'), true);
    assert.equal(await passes('The speed is $\\boxed{4\\,\\text{m}/\\text{s}}$.', '4\\text{ m/s}'), true);
    assert.equal(await passes('The force is $\\boxed{7 \\text{kg}\\cdot\\text{m}}$.', '7'), true);
    assert.equal(await passes('$\\boxed{4\\text{ m} \\cdot 2}$', '4'), false, 'a number after a unit still multiplies');
  });
  void test('Math-Verify options a task file sets', async () => {
    assert.equal(await passes('$\\boxed{f(y)}$', 'f(x)'), false);
    assert.equal(await passes('$\\boxed{f(y)}$', 'f(x)', { strict: false }), true);
    assert.equal(await passes('$\\boxed{y^2 + 1}$', 'x^2 + 1', { strict: false }), true);
    assert.equal(await passes('I think it is 42', '42'), true);
    assert.equal(await passes('I think it is 42', '42', { last_number: false }), false);
    assert.equal(await passes('$\\boxed{-2 \\le x \\le 7}$', 'x \\in [-2,7]'), true);
    assert.equal(await passes('$\\boxed{-2 \\le x \\le 7}$', 'x \\in [-2,7]', { set_relation: false }), false);
    assert.equal(await passes('$\\boxed{0.3333}$', '\\frac{1}{3}'), false);
    assert.equal(await passes('$\\boxed{0.3333}$', '\\frac{1}{3}', { precision: 4 }), true);
  });
});

void describe('plain integer gold answers, read without the general path', () => {
  // Integers as text and as numbers, leading zeros, the longest the shortcut takes and one past
  // it, and near misses that must take the general path (space, sign, decimal, delimiters).
  const golds: (string | number)[] = [
    '0',
    '7',
    '007',
    '204',
    204,
    0,
    2 ** 53,
    1e21,
    -5,
    '9'.repeat(300),
    '9'.repeat(301),
    ' 42',
    '42 ',
    '-42',
    '+42',
    '42.0',
    '$42$',
    '\\boxed{42}',
    '４２',
    '٤٢',
  ];
  void test('give what goldText and parseAnswerText give', () => {
    for (const raw of golds) {
      const text = goldText(raw);
      assert.deepEqual(parseGold(raw), { text, parsed: parseAnswerText(text) }, `gold ${JSON.stringify(raw)}`);
    }
  });
  void test('give the verdicts their text gives through the general path', async () => {
    const responses = [
      '\\boxed{42}',
      '\\boxed{042}',
      'it is 204',
      '\\boxed{7.0}',
      '\\boxed{0}',
      'none',
      '\\boxed{4 2}',
    ];
    let passed = 0;
    for (const r of responses)
      for (const raw of ['42', 42, '204', '7', '0', '007']) {
        const fast = await checkMath(r, { answer: raw });
        // The same integer in dollars is read by the general path (the delimiters taken off).
        const general = await checkMath(r, { answer: `$${raw}$` });
        assert.deepEqual(
          { pass: fast.pass, score: fast.score, normalized: fast.details.normalized, error: fast.error },
          { pass: general.pass, score: general.score, normalized: general.details.normalized, error: general.error },
          `${r} against ${JSON.stringify(raw)}`,
        );
        if (fast.pass) passed++;
      }
    assert.ok(passed > 0 && passed < responses.length * 6, 'the pairs tell passes from fails');
  });
});

void describe('parsed gold answers kept between samples', () => {
  // The same golds under different bases and as number or text, with responses that tell them
  // apart: a kept parse used for the wrong base or form would change a verdict here.
  const golds: ReadonlyArray<{ gold: string | number; base?: number }> = [
    { gold: '204' },
    { gold: '204', base: 5 },
    { gold: 204, base: 5 },
    { gold: 204 },
    { gold: ' 0.5 ' },
    { gold: '\\frac{3}{4}' },
    { gold: '(1, 2]' },
    { gold: 'The sides add up, so the answer is \\boxed{12}.' },
    { gold: '\\boxed{1011_2}' },
    { gold: 'not a \\frac{ number' },
  ];
  const responses = [
    '\\boxed{204}',
    '\\boxed{204_5}',
    '\\boxed{0.5}',
    '\\boxed{3/4}',
    '\\boxed{(1,2]}',
    '12',
    '\\boxed{11}',
  ];
  const verdicts = async () => {
    const out: unknown[] = [];
    for (const r of responses)
      for (const { gold, base } of golds)
        out.push(await checkMath(r, { answer: gold, ...(base === undefined ? {} : { base }) }));
    return out;
  };
  void test('give the verdicts a fresh parse gives', async () => {
    const warm = await verdicts();
    const cold: unknown[] = [];
    for (const r of responses)
      for (const { gold, base } of golds) {
        clearParsedGolds();
        cold.push(await checkMath(r, { answer: gold, ...(base === undefined ? {} : { base }) }));
      }
    assert.deepEqual(warm, cold);
    // And the set tells the cases apart (a test that cannot fail would prove nothing).
    const passes = (warm as { pass: boolean }[]).map((v) => v.pass);
    assert.ok(passes.includes(true) && passes.includes(false));
    assert.deepEqual(
      passes.slice(golds.length, 2 * golds.length).slice(0, 4),
      [false, true, true, false],
      '204_5 is 204 in base 5 only',
    );
  });
});
