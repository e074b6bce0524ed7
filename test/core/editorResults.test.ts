import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { resultKeysOf } from '../../src/core/run/resultKeys';
import { askEndpoint, endpointUrlProblem, type EndpointPrompts } from '../../src/vscode/endpointWizard';

const TASK = `tasks:
  - id: t
    prompt: What is 6 * 7?
    verify:
      math: { answer: "42" }
    cases:
      - response: "\\\\boxed{42}"
        expect: pass
`;

const keys = (text: string): { run: string; cases: string } => {
  const file = parseTaskFile(text);
  const entry = file.tasks[0];
  assert.ok(entry);
  return resultKeysOf(file, entry);
};

test('editing cases or comments keeps a run fresh; the cases key follows the cases', () => {
  const base = keys(TASK);
  const moreCases = keys(`${TASK}      - response: "\\\\boxed{41}"\n        expect: fail\n`);
  assert.equal(moreCases.run, base.run);
  assert.notEqual(moreCases.cases, base.cases);
  const commented = keys(TASK.replace('    prompt:', '    # a note\n    prompt:'));
  assert.deepEqual(commented, base);
});

test('what is sampled or how it is verified changes both keys', () => {
  const base = keys(TASK);
  for (const changed of [
    TASK.replace('6 * 7', '6 * 8'),
    TASK.replace('"42"', '"43"'),
    `models:\n  m: { base_url: "http://x", model: y }\n${TASK}`,
  ]) {
    const k = keys(changed);
    assert.notEqual(k.run, base.run, changed);
    assert.notEqual(k.cases, base.cases, changed);
  }
});

test('endpoint URLs: malformed ones are refused with a reason, good ones accepted', () => {
  assert.equal(endpointUrlProblem('http://127.0.0.1:8000/v1'), undefined);
  assert.equal(endpointUrlProblem('https://api.example.com/v1'), undefined);
  assert.match(endpointUrlProblem('localhost 8000') ?? '', /Not a URL/);
  assert.match(endpointUrlProblem('ftp://host/v1') ?? '', /http/);
  assert.match(endpointUrlProblem('') ?? '', /Enter/);
  assert.match(endpointUrlProblem('http://user:secret@host/v1') ?? '', /credentials/);
});

/** Prompts that answer from a script; `undefined` is Escape. Records every question asked. */
function scripted(
  answers: (string | boolean | undefined)[],
  models: string[] | Error = [],
): EndpointPrompts & { asked: string[] } {
  const asked: string[] = [];
  const next = (what: string): string | boolean | undefined => {
    asked.push(what);
    if (!answers.length) throw new Error(`unexpected question: ${what}`);
    return answers.shift();
  };
  return {
    asked,
    input: async (o) => {
      const a = next(o.title) as string | undefined;
      // VS Code keeps the box open while validate objects: a refused value is never returned.
      assert.ok(a === undefined || !o.validate?.(a), `${o.title} accepted an invalid ${a}`);
      return a;
    },
    pick: async (title) => next(title) as string | undefined,
    confirm: async (message) => next(message) === true,
    listModels: async () => {
      if (models instanceof Error) throw models;
      return models;
    },
  };
}

test('Add Model Endpoint: Escape at any step ends it with nothing added', async () => {
  const full: (string | boolean)[] = ['http://127.0.0.1:9/v1', 'sk-x', 'm1', 'prof'];
  for (let stop = 0; stop < full.length; stop++) {
    const p = scripted([...full.slice(0, stop), undefined], ['m1']);
    assert.equal(await askEndpoint(p), undefined, `Escape at step ${stop + 1}`);
    assert.equal(p.asked.length, stop + 1, `no question after Escape at step ${stop + 1}`);
  }
  const done = await askEndpoint(scripted([...full], ['m1']));
  assert.deepEqual(done, { url: 'http://127.0.0.1:9/v1', key: 'sk-x', model: 'm1', name: 'prof' });
});

test('Add Model Endpoint: an unreachable server is added only when confirmed; an empty key is none', async () => {
  const refused = scripted(['http://127.0.0.1:9/v1/', '', false], new Error('ECONNREFUSED'));
  assert.equal(await askEndpoint(refused), undefined);
  const kept = await askEndpoint(
    scripted(['http://127.0.0.1:9/v1/', '', true, 'typed-model', 'p'], new Error('ECONNREFUSED')),
  );
  assert.deepEqual(kept, { url: 'http://127.0.0.1:9/v1', key: undefined, model: 'typed-model', name: 'p' });
});
