import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { INSTRUCTIONS, kwargConflicts } from '../../src/core/verifiers/constraints/instructions';
import type { InstructionDef } from '../../src/core/verifiers/constraints/instruction';
import { lazy, needsConformance, readJson, readJsonl } from '../support/conformance';

// The peers' conformance data sits beside the repository in ../shared (test/support/conformance.ts):
// read only by the tests that compare with it, so the others run without it.

interface PeerId {
  id: string;
  kwargs: string[];
}
type PeerIds = Record<'ifeval_google' | 'ifbench' | 'open_instruct_ifevalg', PeerId[]>;

/** The strict object a task file's kwargs are validated with: required kwargs required, no others. */
function kwargsSchema(d: InstructionDef): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, k] of Object.entries(d.kwargs)) shape[name] = k.required ? k.schema : k.schema.optional();
  return z.strictObject(shape);
}

/** Validates kwargs for an id; returns the problems as readable strings, empty when valid. */
function problems(id: string, kwargs: unknown): string[] {
  const d = INSTRUCTIONS.get(id);
  if (!d) return [`unknown id ${id}`];
  const r = kwargsSchema(d).safeParse(kwargs);
  if (!r.success) return r.error.issues.map((i) => `${id}: ${i.path.join('.')}: ${i.message}`);
  return kwargConflicts(id, kwargs as Record<string, unknown>).map((m) => `${id}: ${m}`);
}

const peerIds = lazy(() => readJson<PeerIds>('instruction_ids.json'));

void test(
  'every IFEval, IFBench and open-instruct id is registered with the peer kwarg names',
  { skip: needsConformance },
  () => {
    for (const list of Object.values(peerIds())) {
      for (const p of list) {
        const d = INSTRUCTIONS.get(p.id);
        assert.ok(d, `missing ${p.id}`);
        assert.deepEqual(Object.keys(d.kwargs).sort(), [...p.kwargs].sort(), `kwargs of ${p.id}`);
      }
    }
  },
);

void test(
  'sources: shared ids name IFEval, and the counts per source are as expected',
  { skip: needsConformance },
  () => {
    const peers = peerIds();
    const ifevalIds = new Set(peers.ifeval_google.map((p) => p.id));
    const expected = new Map<string, string>();
    for (const p of peers.ifeval_google) expected.set(p.id, 'ifeval');
    for (const p of peers.ifbench) if (!ifevalIds.has(p.id)) expected.set(p.id, 'ifbench');
    for (const p of peers.open_instruct_ifevalg) if (!ifevalIds.has(p.id)) expected.set(p.id, 'open-instruct');
    for (const [id, source] of expected) assert.equal(INSTRUCTIONS.get(id)?.source, source, id);

    const counts: Record<string, number> = {};
    for (const d of INSTRUCTIONS.values()) counts[d.source] = (counts[d.source] ?? 0) + 1;
    assert.equal(counts.ifeval, 25);
    assert.equal(counts.ifbench, 58);
    assert.equal(counts['open-instruct'], 29);
    assert.ok((counts.vtask ?? 0) >= 1);
    // Nothing else is registered: every id is a peer's or carries the vtask prefix.
    for (const d of INSTRUCTIONS.values()) {
      if (d.source === 'vtask') assert.match(d.id, /^vtask:/);
      else assert.ok(expected.has(d.id), `unexpected id ${d.id}`);
    }
  },
);

void test('map keys match ids, summaries are one line and name their kwargs, every kwarg is documented', () => {
  for (const [key, d] of INSTRUCTIONS) {
    assert.equal(key, d.id);
    assert.ok(d.summary.trim().length > 0 && !d.summary.includes('\n'), `summary of ${d.id}`);
    for (const [name, k] of Object.entries(d.kwargs)) {
      assert.ok(k.doc.trim().length > 0 && !k.doc.includes('\n'), `doc of ${d.id}.${name}`);
      // The summary says when the instruction holds, so it names every value that matters;
      // relations read as "fewer than / at least" instead of by name.
      if (k.required && !name.endsWith('relation')) {
        assert.ok(d.summary.includes(`\`${name}\``), `summary of ${d.id} does not mention \`${name}\``);
      }
    }
  }
});

void test('every example passes its schema, and the examples together pass the instruction', () => {
  for (const d of INSTRUCTIONS.values()) {
    const all: Record<string, unknown> = {};
    for (const [name, k] of Object.entries(d.kwargs)) {
      const r = k.schema.safeParse(k.example);
      assert.ok(r.success, `${d.id}.${name} example ${JSON.stringify(k.example)}: ${r.success ? '' : r.error.message}`);
      all[name] = k.example;
    }
    assert.deepEqual(problems(d.id, all), []);
  }
});

void test("every kwargs object in IFEval's evaluation prompts validates", { skip: needsConformance }, () => {
  interface Row {
    key: number;
    instruction_id_list: string[];
    kwargs: Record<string, unknown>[];
  }
  const rows = readJsonl<Row>('ifeval_input_prompts.jsonl');
  assert.equal(rows.length, 541);
  const bad: string[] = [];
  for (const r of rows) {
    r.instruction_id_list.forEach((id, i) => bad.push(...problems(id, r.kwargs[i] ?? {}).map((p) => `${r.key} ${p}`)));
  }
  assert.deepEqual(bad, []);
});

interface TestRow {
  registry_id: string | null;
  kwargs: Record<string, unknown>;
  expected: boolean | 'raises';
}

for (const file of ['ifeval_google_tests.jsonl', 'ifbench_tests.jsonl']) {
  void test(`kwargs of the peer's own tests in ${file} validate`, { skip: needsConformance }, () => {
    const rows = readJsonl<TestRow>(file);
    let checked = 0;
    const bad: string[] = [];
    for (const r of rows) {
      // Unregistered peer classes have a null id, and "raises" rows test the peer's own errors.
      // No row is excepted otherwise: every registered id's kwargs must validate.
      if (r.registry_id === null || r.expected === 'raises') continue;
      assert.ok(INSTRUCTIONS.has(r.registry_id), `unknown id ${r.registry_id}`);
      checked++;
      bad.push(...problems(r.registry_id, r.kwargs));
    }
    assert.deepEqual(bad, []);
    assert.ok(checked >= 80, `only ${checked} rows checked`);
  });
}

void test('missing, unknown and mistyped kwargs are rejected', () => {
  const reject = (id: string, kwargs: unknown): void =>
    assert.notDeepEqual(problems(id, kwargs), [], `${id} ${JSON.stringify(kwargs)} should be invalid`);
  reject('length_constraints:number_words', { num_words: 100 });
  reject('length_constraints:number_words', { num_words: 100, relation: 'at least', extra: 1 });
  reject('length_constraints:number_words', { num_words: 100, relation: 'more than' });
  reject('length_constraints:number_words', { num_words: 2.5, relation: 'at least' });
  reject('length_constraints:number_words', { num_words: '100', relation: 'at least' });
  reject('length_constraints:number_words', { num_words: 0, relation: 'at least' });
  reject('detectable_format:number_bullet_lists', { num_bullets: -1 });
  reject('keywords:existence', { keywords: [] });
  reject('keywords:existence', { keywords: 'cat' });
  reject('keywords:existence', { keywords: ['cat', '  '] });
  reject('keywords:letter_frequency', { letter: 'ab', let_frequency: 3, let_relation: 'at least' });
  reject('language:response_language', { language: 'jp' });
  reject('language:response_language', { language: 'EN' });
  reject('language:response_language', { language: 'english' });
  reject('length_constraints:nth_paragraph_first_word', {
    num_paragraphs: 3,
    nth_paragraph: 2,
    first_word: 'two words',
  });
  reject('combination:repeat_prompt', {});
  reject('count:conjunctions', { small_n: 8 });
  reject('count:person_names', { N: 51 });
  reject('ratio:stop_words', { percentage: 101 });
  reject('copy:repeat_phrase', { phrase: 'two words', small_n: 2 });
  reject('vtask:words_start_with', { letter: '#' });
  reject('vtask:words_start_with', {});
  reject('detectable_format:title', { title: 'x' });
});

void test('the one optional kwarg may be left out', () => {
  assert.deepEqual(problems('keywords:exclude_word_harder', { keyword: 'very' }), []);
  assert.deepEqual(problems('keywords:exclude_word_harder', { keyword: 'very', instruction: 'Be very brief.' }), []);
  for (const d of INSTRUCTIONS.values()) {
    for (const [name, k] of Object.entries(d.kwargs)) {
      if (!k.required) assert.equal(`${d.id}.${name}`, 'keywords:exclude_word_harder.instruction');
    }
  }
});

void test('conflicts between kwargs are reported', () => {
  assert.equal(
    problems('length_constraints:nth_paragraph_first_word', { num_paragraphs: 2, nth_paragraph: 3, first_word: 'so' })
      .length,
    1,
  );
  assert.equal(problems('count:word_count_range', { min_words: 10, max_words: 5 }).length, 1);
  assert.deepEqual(problems('count:word_count_range', { min_words: 5, max_words: 5 }), []);
  assert.equal(problems('repeat:repeat_span', { prompt_to_repeat: 'a b c d', n_start: 2, n_end: 1 }).length, 1);
  assert.equal(problems('new:copy_span_idx', { prompt_to_repeat: 'abcdef', n_start: 3, n_end: 3 }).length, 1);
  assert.equal(
    problems('count:keywords_multiple', { keyword1: 'a', keyword2: 'b', keyword3: 'A', keyword4: 'd', keyword5: 'e' })
      .length,
    1,
  );
  assert.deepEqual(kwargConflicts('no:such_id', {}), []);
});
