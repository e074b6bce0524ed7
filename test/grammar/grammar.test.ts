// Tokenizes real task files with the shipped TextMate grammar (vscode-textmate + Oniguruma, the
// engine VS Code uses) and checks the scopes themes rely on; also checks that the language
// configuration and the snippets are strict JSON and that every snippet expands to valid YAML.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vsctm from 'vscode-textmate';
import * as oniguruma from 'vscode-oniguruma';
import { parseDocument } from 'yaml';

const ROOT = process.cwd();
const GRAMMAR_PATH = path.join(ROOT, 'syntaxes/vtask.tmLanguage.json');
const FIXTURES = path.join(ROOT, 'test/fixtures/grammar');

const readJson = (rel: string): unknown => JSON.parse(fs.readFileSync(path.join(ROOT, rel), 'utf8'));

// The real Python and JavaScript grammars are not installed here; these stand-ins are enough to
// see that the embedded region hands its content over. The triple-quoted string and the template
// literal span lines on purpose: an unterminated one must still end with the block scalar.
const STUB_GRAMMARS: Record<string, object> = {
  'source.python': {
    scopeName: 'source.python',
    patterns: [
      { match: '\\b(?:assert|def|return|import|lambda)\\b', name: 'keyword.control.python' },
      { match: '#.*$', name: 'comment.line.number-sign.python' },
      { begin: '"""', end: '"""', name: 'string.quoted.docstring.python' },
    ],
  },
  'source.js': {
    scopeName: 'source.js',
    patterns: [
      { match: '\\b(?:const|let|function|return|if|require)\\b', name: 'keyword.control.js' },
      { begin: '`', end: '`', name: 'string.template.js' },
    ],
  },
};

let grammarPromise: Promise<vsctm.IGrammar> | undefined;

function loadGrammar(): Promise<vsctm.IGrammar> {
  grammarPromise ??= (async () => {
    // loadWASM may run once per process, hence the memoised promise.
    await oniguruma.loadWASM(fs.readFileSync(path.join(ROOT, 'node_modules/vscode-oniguruma/release/onig.wasm')));
    const onigLib: vsctm.IOnigLib = {
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources) as unknown as vsctm.OnigScanner,
      createOnigString: (s) => new oniguruma.OnigString(s) as unknown as vsctm.OnigString,
    };
    const registry = new vsctm.Registry({
      onigLib: Promise.resolve(onigLib),
      loadGrammar: async (scopeName) => {
        if (scopeName === 'source.vtask')
          return vsctm.parseRawGrammar(fs.readFileSync(GRAMMAR_PATH, 'utf8'), GRAMMAR_PATH);
        const stub = STUB_GRAMMARS[scopeName];
        return stub ? vsctm.parseRawGrammar(JSON.stringify(stub), `${scopeName}.json`) : null;
      },
    });
    const grammar = await registry.loadGrammar('source.vtask');
    assert.ok(grammar, 'source.vtask did not load');
    return grammar;
  })();
  return grammarPromise;
}

/** A tokenized document; lines are found by their text so the fixtures can be edited freely. */
class Doc {
  readonly lines: string[];
  readonly tokens: vsctm.IToken[][] = [];

  constructor(grammar: vsctm.IGrammar, text: string) {
    this.lines = text.split(/\r?\n/);
    let stack = vsctm.INITIAL;
    for (const line of this.lines) {
      const r = grammar.tokenizeLine(line, stack);
      this.tokens.push(r.tokens);
      stack = r.ruleStack;
    }
  }

  /** Index of the first line at or after `from` that contains `needle`. */
  find(needle: string, from = 0): number {
    const i = this.lines.findIndex((l, n) => n >= from && l.includes(needle));
    assert.notEqual(i, -1, `no line contains ${JSON.stringify(needle)}`);
    return i;
  }

  /** The scopes of every token that overlaps the nth occurrence of `text` on `line`. */
  spans(line: number, text: string, nth = 0): string[][] {
    const l = this.lines[line] ?? '';
    let at = -1;
    for (let k = 0; k <= nth; k++) at = l.indexOf(text, at + 1);
    assert.notEqual(at, -1, `line ${line + 1} ${JSON.stringify(l)} has no ${JSON.stringify(text)} #${nth}`);
    const end = at + text.length;
    return (this.tokens[line] ?? []).filter((t) => t.startIndex < end && t.endIndex > at).map((t) => t.scopes);
  }

  dump(line: number): string {
    const l = this.lines[line] ?? '';
    const toks = (this.tokens[line] ?? []).map(
      (t) => `  ${JSON.stringify(l.slice(t.startIndex, t.endIndex))}: ${t.scopes.slice(1).join(' ')}`,
    );
    return `line ${line + 1}: ${JSON.stringify(l)}\n${toks.join('\n')}`;
  }
}

const matches = (scope: string, wanted: string) => scope === wanted || scope.startsWith(`${wanted}.`);

/** Every token covering `text` carries `scope` (or a scope below it, e.g. `string` for `string.quoted.double.yaml`). */
function hasScope(doc: Doc, line: number, text: string, scope: string, nth = 0): void {
  for (const scopes of doc.spans(line, text, nth)) {
    assert.ok(
      scopes.some((s) => matches(s, scope)),
      `${JSON.stringify(text)} lacks ${scope}\n${doc.dump(line)}`,
    );
  }
}

/** No token covering `text` carries `scope` or a scope below it. */
function lacksScope(doc: Doc, line: number, text: string, scope: string, nth = 0): void {
  for (const scopes of doc.spans(line, text, nth)) {
    assert.ok(!scopes.some((s) => matches(s, scope)), `${JSON.stringify(text)} has ${scope}\n${doc.dump(line)}`);
  }
}

/** A line that is a plain `key: value` entry at the top of the stack: nothing from above leaked into it. */
function isTopLevelKey(doc: Doc, line: number, key: string): void {
  const spans = doc.spans(line, key);
  assert.equal(spans.length, 1, doc.dump(line));
  assert.deepEqual(spans[0], ['source.vtask', 'entity.name.tag.yaml'], doc.dump(line));
}

async function fixture(name: string): Promise<Doc> {
  // A sentinel key is appended so that each test can check that nothing is left open at the end.
  return new Doc(await loadGrammar(), `${fs.readFileSync(path.join(FIXTURES, name), 'utf8')}\nsentinel_end: 1\n`);
}

async function inline(text: string): Promise<Doc> {
  return new Doc(await loadGrammar(), text);
}

void describe('grammar file', () => {
  type Rule = Record<string, unknown>;
  const grammar = readJson('syntaxes/vtask.tmLanguage.json') as {
    scopeName: string;
    patterns: Rule[];
    repository: Record<string, Rule>;
  };

  function* rules(node: unknown): Generator<Rule> {
    if (Array.isArray(node)) for (const n of node) yield* rules(n);
    else if (node && typeof node === 'object') {
      yield node as Rule;
      for (const v of Object.values(node)) yield* rules(v);
    }
  }

  void test('is strict JSON for source.vtask and every include resolves', () => {
    assert.equal(grammar.scopeName, 'source.vtask');
    const external = new Set(['source.python', 'source.js', '$self', '$base']);
    for (const r of rules(grammar)) {
      const inc = r['include'];
      if (typeof inc !== 'string') continue;
      if (inc.startsWith('#')) assert.ok(grammar.repository[inc.slice(1)], `unresolved include ${inc}`);
      else assert.ok(external.has(inc), `unexpected external include ${inc}`);
    }
  });

  void test('every regex compiles in Oniguruma', async () => {
    await loadGrammar();
    let count = 0;
    for (const r of rules(grammar)) {
      for (const key of ['match', 'begin', 'end', 'while']) {
        const src = r[key];
        if (typeof src !== 'string') continue;
        // end/while back-references are filled in from the begin match at run time.
        const compiled = key === 'end' || key === 'while' ? src.replace(/\\[1-9]/g, '') : src;
        assert.doesNotThrow(() => new oniguruma.OnigScanner([compiled]), `${key}: ${src}`);
        count++;
      }
    }
    assert.ok(count > 40, `only ${count} regexes found`);
  });

  void test('uses the embedded scopes that package.json maps to languages', () => {
    const text = fs.readFileSync(GRAMMAR_PATH, 'utf8');
    const pkg = readJson('package.json') as {
      contributes: { grammars: { scopeName: string; embeddedLanguages?: Record<string, string> }[] };
    };
    const entry = pkg.contributes.grammars.find((g) => g.scopeName === 'source.vtask');
    assert.ok(entry?.embeddedLanguages, 'package.json has no embeddedLanguages for source.vtask');
    for (const scope of ['meta.embedded.block.python', 'meta.embedded.block.javascript']) {
      assert.ok(scope in entry.embeddedLanguages, `package.json does not map ${scope}`);
      assert.ok(text.includes(`"contentName": "${scope}"`), `grammar never emits ${scope}`);
    }
  });
});

void describe('math task file', () => {
  void test('comments, document markers, section keys and numbers', async () => {
    const d = await fixture('math.vtask');
    hasScope(d, 0, '# Grade-school', 'comment.line.number-sign.yaml');
    hasScope(d, 0, '#', 'punctuation.definition.comment.yaml');
    hasScope(d, d.find('---'), '---', 'entity.other.document.begin.yaml');
    hasScope(d, d.find('...'), '...', 'entity.other.document.end.yaml');
    for (const key of ['vtask', 'defaults', 'models', 'tasks']) {
      const line = d.find(`${key}:`);
      hasScope(d, line, key, 'keyword.other.section.vtask');
      hasScope(d, line, key, 'entity.name.tag.yaml');
      hasScope(d, line, ':', 'punctuation.separator.key-value.mapping.yaml');
    }
    const version = d.find('vtask: 1');
    hasScope(d, version, '1', 'constant.numeric.integer.yaml');
    hasScope(d, version, '# format version', 'comment.line.number-sign.yaml');
    hasScope(d, d.find('samples: 8'), '8', 'constant.numeric.integer.yaml');
    hasScope(d, d.find('temperature: 1.0'), '1.0', 'constant.numeric.float.yaml');
    hasScope(d, d.find('tolerance: 1e-6'), '1e-6', 'constant.numeric.float.yaml');
    // Nested keys are not sections, even when they share a section's name later on.
    lacksScope(d, d.find('  model: local'), 'model', 'keyword.other.section');
    isTopLevelKey(d, d.find('sentinel_end'), 'sentinel_end');
  });

  void test('task ids: plain, quoted and in a flow-style task', async () => {
    const d = await fixture('math.vtask');
    const first = d.find('- id: gsm8k/0001');
    hasScope(d, first, 'gsm8k/0001', 'entity.name.function.task-id.vtask');
    hasScope(d, first, 'id', 'entity.name.tag.yaml');
    lacksScope(d, first, 'id', 'entity.name.function');
    hasScope(d, first, '# required', 'comment.line.number-sign.yaml');
    lacksScope(d, first, '# required', 'entity.name.function');
    const quoted = d.find('id: "math/algebra-17"');
    hasScope(d, quoted, '"math/algebra-17"', 'entity.name.function.task-id.vtask');
    hasScope(d, quoted, '"math/algebra-17"', 'string.quoted.double.yaml');
    hasScope(d, d.find('aime/2024-i-3'), 'aime/2024-i-3', 'entity.name.function.task-id.vtask');
    const flow = d.find('{ id: choice/0003');
    hasScope(d, flow, 'choice/0003', 'entity.name.function.task-id.vtask');
    lacksScope(d, flow, 'choice/0003,', 'punctuation.separator.key-value');
    hasScope(d, flow, ',', 'punctuation.separator.mapping.yaml');
  });

  void test('keys, strings, escapes, constants and anchors', async () => {
    const d = await fixture('math.vtask');
    const system = d.find('system: "Put the final answer');
    hasScope(d, system, 'system', 'entity.name.tag.yaml');
    hasScope(d, system, 'Put the final answer in', 'string.quoted.double.yaml');
    hasScope(d, system, '\\\\', 'constant.character.escape.yaml');
    hasScope(d, system, '"', 'punctuation.definition.string.begin.yaml');
    const single = d.find("response: '\\boxed{71}'");
    hasScope(d, single, '\\boxed{71}', 'string.quoted.single.yaml');
    lacksScope(d, single, '\\b', 'constant.character.escape');
    const plain = d.find('model: qwen/qwen-2.5-72b-instruct');
    hasScope(d, plain, 'qwen/qwen-2.5-72b-instruct', 'string.unquoted.plain.out.yaml');
    hasScope(d, d.find('base_url: https://'), 'https://openrouter.ai/api/v1', 'string.unquoted.plain.out.yaml');
    const flow = d.find('local: { base_url:');
    hasScope(d, flow, 'base_url', 'entity.name.tag.yaml');
    hasScope(d, flow, 'base_url', 'meta.flow-mapping.yaml');
    hasScope(d, flow, '{', 'punctuation.definition.mapping.begin.yaml');
    hasScope(d, flow, 'http://127.0.0.1:8000/v1', 'string.quoted.double.yaml');
    const meta = d.find('meta: { source: gsm8k');
    hasScope(d, meta, '~', 'constant.language.null.yaml');
    hasScope(d, meta, 'gsm8k', 'string.unquoted.plain.in.yaml');
    hasScope(d, d.find('final_only: true'), 'true', 'constant.language.boolean.yaml');
    const tags = d.find('tags: &gsm [math, gsm8k]');
    hasScope(d, tags, 'gsm', 'entity.name.type.anchor.yaml');
    hasScope(d, tags, '[', 'punctuation.definition.sequence.begin.yaml');
    const content = d.find('content: Find the remainder');
    hasScope(d, content, 'Find the remainder when 2^100 is divided by 7.', 'string.unquoted.plain.out.yaml');
    lacksScope(d, content, '100', 'constant.numeric');
    hasScope(d, d.find('- role: user'), '-', 'punctuation.definition.block.sequence.item.yaml');
  });

  void test('verifier kinds are scoped as keys inside verify: only', async () => {
    const d = await fixture('math.vtask');
    const math = d.find('math: { answer: "72" }');
    hasScope(d, math, 'math', 'support.type.verifier.vtask');
    hasScope(d, math, 'math', 'meta.verify.vtask');
    hasScope(d, math, 'answer', 'entity.name.tag.yaml');
    lacksScope(d, math, 'answer', 'support.type.verifier');
    hasScope(d, d.find('      math:', math + 1), 'math', 'support.type.verifier.vtask');
    const any = d.find('any:');
    hasScope(d, any, 'any', 'support.type.verifier.vtask');
    lacksScope(d, d.find('of:', any), 'of', 'support.type.verifier');
    hasScope(d, d.find('- math: { answer: 2'), 'math', 'support.type.verifier.vtask');
    hasScope(d, d.find('- match: { answer: "two"'), 'match', 'support.type.verifier.vtask');
    const flow = d.find('{ id: choice/0003');
    hasScope(d, flow, 'choice', 'support.type.verifier.vtask', 1);
    lacksScope(d, flow, 'answer', 'support.type.verifier');
    // As values or outside verify:, the same words are plain YAML.
    lacksScope(d, d.find('tags: &gsm [math, gsm8k]'), 'math', 'support.type.verifier');
    lacksScope(d, d.find('tags: [math] }'), 'math', 'support.type.verifier');
    lacksScope(d, d.find('mode: normalized'), 'normalized', 'support.type.verifier');
  });

  void test('expect: pass / fail in block and flow cases', async () => {
    const d = await fixture('math.vtask');
    const pass = d.find('expect: pass');
    hasScope(d, pass, 'pass', 'constant.language.expect.pass.vtask');
    hasScope(d, pass, 'expect', 'entity.name.tag.yaml');
    const fail = d.find('expect: fail');
    hasScope(d, fail, 'fail', 'constant.language.expect.fail.vtask');
    lacksScope(d, fail, 'fail', 'constant.language.expect.pass');
    const flowPass = d.find('expect: pass }');
    hasScope(d, flowPass, 'pass', 'constant.language.expect.pass.vtask');
    hasScope(d, flowPass, '}', 'punctuation.definition.mapping.end.yaml', 1); // the first `}` closes \boxed{2}
    hasScope(d, d.find('expect: fail }'), 'fail', 'constant.language.expect.fail.vtask');
  });

  void test('a literal block prompt is string content and ends at its indentation', async () => {
    const d = await fixture('math.vtask');
    const header = d.find('prompt: |');
    hasScope(d, header, 'prompt', 'entity.name.tag.yaml');
    hasScope(d, header, '|', 'keyword.control.flow.block-scalar.literal.yaml');
    hasScope(d, header, '# a literal block', 'comment.line.number-sign.yaml');
    hasScope(d, header + 1, 'Natalia sold clips', 'string.unquoted.block.yaml');
    hasScope(d, header + 2, 'How many clips', 'string.unquoted.block.yaml');
    assert.equal(d.lines[header + 3], '', 'the fixture keeps a blank line inside the prompt');
    // After the blank line the block continues: a `key:` and a `#` here are prompt text.
    const answer = d.find('Answer: think step by step.');
    hasScope(d, answer, 'Answer: think step by step.', 'string.unquoted.block.yaml');
    lacksScope(d, answer, 'Answer', 'entity.name.tag');
    hasScope(d, answer, '# part of the prompt', 'string.unquoted.block.yaml');
    lacksScope(d, answer, '# part of the prompt', 'comment');
    // The next line at the key's indentation is a key again, not string.
    const verify = answer + 1;
    assert.match(d.lines[verify] ?? '', /^ {4}verify:/);
    hasScope(d, verify, 'verify', 'entity.name.tag.yaml');
    lacksScope(d, verify, 'verify', 'string');
    hasScope(d, verify, '# exactly one verifier', 'comment.line.number-sign.yaml');
  });

  void test('folded blocks, chomping indicators and block scalars in sequences', async () => {
    const d = await fixture('math.vtask');
    const header = d.find('prompt: >-');
    hasScope(d, header, '>', 'keyword.control.flow.block-scalar.folded.yaml');
    hasScope(d, header, '-', 'storage.modifier.chomping-indicator.yaml');
    hasScope(d, header + 1, 'Simplify \\frac{x^2 - 1}{x - 1}', 'string.unquoted.block.yaml');
    hasScope(d, header + 2, 'for x \\neq 1.', 'string.unquoted.block.yaml');
    hasScope(d, header + 3, 'verify', 'entity.name.tag.yaml');
    lacksScope(d, header + 3, 'verify', 'string');
    const response = d.find('- response: |');
    hasScope(d, response + 1, '<think>maybe x - 1?</think>', 'string.unquoted.block.yaml');
    hasScope(d, response + 2, 'The final answer is', 'string.unquoted.block.yaml');
    // The sibling of `response` is at the key's column, after the dash: it ends the block.
    hasScope(d, response + 3, 'pass', 'constant.language.expect.pass.vtask');
    lacksScope(d, response + 3, 'expect', 'string');
  });
});

void describe('constraints and code task file', () => {
  void test('instruction ids as keys, bare list items and vtask ids', async () => {
    const d = await fixture('constraints-code.vtask');
    const words = d.find('- length_constraints:number_words:');
    hasScope(d, words, 'length_constraints:number_words', 'support.function.instruction.vtask');
    hasScope(d, words, 'length_constraints:number_words', 'entity.name.tag.yaml');
    hasScope(d, words, 'relation', 'entity.name.tag.yaml');
    lacksScope(d, words, 'relation', 'support.function.instruction');
    hasScope(d, words, 'less than', 'string.unquoted.plain.in.yaml');
    hasScope(d, words, '300', 'constant.numeric.integer.yaml');
    hasScope(d, d.find('- detectable_format:title'), 'detectable_format:title', 'support.function.instruction.vtask');
    const bare = d.find('- punctuation:no_comma');
    hasScope(d, bare, 'punctuation:no_comma', 'support.function.instruction.vtask');
    hasScope(d, bare, '-', 'punctuation.definition.block.sequence.item.yaml');
    hasScope(d, bare, '# no kwargs', 'comment.line.number-sign.yaml');
    lacksScope(d, bare, '# no kwargs', 'support.function.instruction');
    hasScope(
      d,
      d.find('- change_case:english_lowercase'),
      'change_case:english_lowercase',
      'support.function.instruction.vtask',
    );
    hasScope(d, d.find('- count:word_count_range:'), 'count:word_count_range', 'support.function.instruction.vtask');
    const own = d.find('- vtask:words_start_with:');
    hasScope(d, own, 'vtask:words_start_with', 'support.function.instruction.vtask');
    lacksScope(d, own, 'vtask', 'keyword.other.section');
    hasScope(d, d.find('constraints:'), 'constraints', 'support.type.verifier.vtask');
    for (const key of ['mode: loose', 'instructions:']) {
      const line = d.find(key);
      hasScope(d, line, key.split(':')[0] ?? '', 'entity.name.tag.yaml');
      lacksScope(d, line, key.split(':')[0] ?? '', 'support');
    }
    hasScope(d, d.find('expect: { score: 0.5 }'), '0.5', 'constant.numeric.float.yaml');
    lacksScope(d, d.find('expect: { score: 0.5 }'), 'score', 'constant.language.expect');
  });

  void test('key-like lines inside a prompt block stay prompt text', async () => {
    const d = await fixture('constraints-code.vtask');
    const fake = d.find('verify: this line looks like a key');
    hasScope(d, fake, 'verify: this line looks like a key', 'string.unquoted.block.yaml');
    lacksScope(d, fake, 'verify', 'meta.verify');
    const item = d.find('- format: plain text');
    hasScope(d, item, 'format: plain text', 'string.unquoted.block.yaml');
    lacksScope(d, item, 'format', 'support.type.verifier');
    lacksScope(d, item, '-', 'punctuation.definition.block.sequence.item');
    hasScope(d, fake + 1, 'verify', 'meta.verify.vtask');
    lacksScope(d, fake + 1, 'verify', 'string');
  });

  void test('an asserts block is embedded Python and ends at its indentation', async () => {
    const d = await fixture('constraints-code.vtask');
    const header = d.find('asserts: |', d.find('id: code/add'));
    hasScope(d, header, 'asserts', 'entity.name.tag.yaml');
    hasScope(d, header, '|', 'keyword.control.flow.block-scalar.literal.yaml');
    const first = header + 1;
    hasScope(d, first, 'assert add(1, 2) == 3', 'meta.embedded.block.python');
    hasScope(d, first, 'assert', 'keyword.control.python');
    lacksScope(d, first, 'add(1, 2)', 'string');
    lacksScope(d, first, 'add(1, 2)', 'meta.embedded.block.javascript');
    hasScope(d, header + 2, '# negative numbers', 'comment.line.number-sign.python');
    assert.equal(d.lines[header + 3], '', 'the fixture keeps a blank line inside asserts');
    hasScope(d, header + 4, 'assert add(10**18, 1)', 'meta.embedded.block.python');
    const after = d.find('timeout_ms: 2000');
    assert.equal(after, header + 5);
    hasScope(d, after, 'timeout_ms', 'entity.name.tag.yaml');
    hasScope(d, after, '2000', 'constant.numeric.integer.yaml');
    lacksScope(d, after, 'timeout_ms', 'meta.embedded');
    hasScope(d, after, 'timeout_ms', 'meta.verify.vtask');
    isTopLevelKey(d, d.find('sentinel_end'), 'sentinel_end');
  });

  void test('a `# javascript` comment on the header switches asserts to JavaScript', async () => {
    const d = await fixture('constraints-code.vtask');
    const header = d.find('asserts: |  # javascript');
    hasScope(d, header, '# javascript', 'comment.line.number-sign.yaml');
    hasScope(d, header + 1, 'const assert = require("node:assert");', 'meta.embedded.block.javascript');
    hasScope(d, header + 1, 'const', 'keyword.control.js');
    lacksScope(d, header + 1, 'const', 'meta.embedded.block.python');
    hasScope(d, header + 2, 'assert.strictEqual', 'meta.embedded.block.javascript');
    const language = header + 3;
    hasScope(d, language, 'language', 'entity.name.tag.yaml');
    lacksScope(d, language, 'language', 'meta.embedded');
  });

  void test('`language: javascript` before asserts makes an unmarked block JavaScript', async () => {
    const d = await fixture('constraints-code.vtask');
    const task = d.find('id: code/max-js');
    const header = d.find('asserts: |', task);
    hasScope(d, header + 1, 'if (max([1, 5, 3]) !== 5) process.exit(1);', 'meta.embedded.block.javascript');
    hasScope(d, header + 1, 'if', 'keyword.control.js');
    lacksScope(d, header + 1, 'process', 'meta.embedded.block.python');
    hasScope(d, d.find('timeout_ms: 1000', task), '1000', 'constant.numeric.integer.yaml');
    // The JavaScript region ends with its mapping: the next task's asserts are Python again.
    const python = d.find('assert add(1, 2) == 3');
    assert.ok(python < task, 'fixture order changed');
    hasScope(d, d.find('cases:', header), 'cases', 'entity.name.tag.yaml');
    lacksScope(d, d.find('cases:', header), 'cases', 'meta.verify');
  });

  void test('block scalars nested in sequences of a code verifier', async () => {
    const d = await fixture('constraints-code.vtask');
    const stdin = d.find('- stdin: |');
    hasScope(d, stdin, 'stdin', 'entity.name.tag.yaml');
    hasScope(d, stdin + 1, '10 -4', 'string.unquoted.block.yaml');
    hasScope(d, stdin + 2, 'stdout', 'entity.name.tag.yaml');
    hasScope(d, stdin + 2, '6', 'string.quoted.double.yaml');
    const flow = d.find('- { stdin: "2 3\\n"');
    hasScope(d, flow, '\\n', 'constant.character.escape.yaml');
  });

  void test('a JSON schema keeps its own keys plain; agent verifiers are kinds', async () => {
    const d = await fixture('constraints-code.vtask');
    hasScope(d, d.find('json:'), 'json', 'support.type.verifier.vtask');
    const schema = d.find('schema:');
    hasScope(d, schema, 'schema', 'entity.name.tag.yaml');
    hasScope(d, schema + 1, 'type', 'meta.schema.vtask');
    const format = d.find('format: email');
    hasScope(d, format, 'format', 'entity.name.tag.yaml');
    lacksScope(d, format, 'format', 'support.type.verifier');
    hasScope(d, d.find('additionalProperties: false'), 'false', 'constant.language.boolean.yaml');
    hasScope(d, d.find('- format: { think: required }'), 'format', 'support.type.verifier.vtask');
    hasScope(d, d.find('- trajectory:'), 'trajectory', 'support.type.verifier.vtask');
    hasScope(d, d.find('- state:'), 'state', 'support.type.verifier.vtask');
    hasScope(d, d.find('all:'), 'all', 'support.type.verifier.vtask');
    // `args:` of an environment is not inside verify:.
    lacksScope(d, d.find('args: { seed: 3 }'), 'seed', 'support');
    const calls = d.find('- calls: [{ get: { key: fr } }]');
    hasScope(d, calls, 'get', 'entity.name.tag.yaml');
    lacksScope(d, calls, 'get', 'support');
  });
});

void describe('edge cases', () => {
  void test('an empty block scalar does not swallow the next key', async () => {
    const d = await inline(
      [
        'tasks:',
        '  - id: t/1',
        '    prompt: |',
        '    verify:',
        '      math: { answer: 1 }',
        '    response: >',
        '',
      ].join('\n'),
    );
    hasScope(d, 3, 'verify', 'meta.verify.vtask');
    lacksScope(d, 3, 'verify', 'string');
    hasScope(d, 4, 'math', 'support.type.verifier.vtask');
  });

  void test('an unterminated string in embedded code cannot leak past the block', async () => {
    const d = await inline(
      [
        '    verify:',
        '      code:',
        '        asserts: |',
        '          s = """never closed',
        '        language: python',
        '      # a comment inside verify',
        '    cases:',
        '      - response: x',
        '        expect: fail',
        '',
      ].join('\n'),
    );
    hasScope(d, 3, '"""never closed', 'string.quoted.docstring.python');
    hasScope(d, 4, 'language', 'entity.name.tag.yaml');
    lacksScope(d, 4, 'language', 'string');
    lacksScope(d, 4, 'language', 'meta.embedded');
    hasScope(d, 5, '# a comment', 'comment.line.number-sign.yaml');
    hasScope(d, 6, 'cases', 'entity.name.tag.yaml');
    lacksScope(d, 6, 'cases', 'meta.verify');
    hasScope(d, 8, 'fail', 'constant.language.expect.fail.vtask');
  });

  void test('language markers: `# python`, `# js`, unknown comments and other keys', async () => {
    const d = await inline(
      [
        'verify:',
        '  code:',
        '    language: javascript',
        '    asserts: |  # python',
        '      assert f() == 1',
        '    stdin: |  # js',
        '      const x = `template',
        '    asserts: |-  # checks f',
        '      if (f() !== 1) process.exit(1);',
        'other:',
        '  asserts: |  # only the default',
        '    assert g()',
        '  stdin: |',
        '    plain text',
        '',
      ].join('\n'),
    );
    hasScope(d, 4, 'assert f() == 1', 'meta.embedded.block.python');
    hasScope(d, 6, 'const', 'meta.embedded.block.javascript');
    hasScope(d, 7, '-', 'storage.modifier.chomping-indicator.yaml');
    hasScope(d, 8, 'if (f() !== 1)', 'meta.embedded.block.javascript');
    hasScope(d, 9, 'other', 'entity.name.tag.yaml');
    lacksScope(d, 9, 'other', 'meta.verify');
    hasScope(d, 11, 'assert g()', 'meta.embedded.block.python');
    hasScope(d, 13, 'plain text', 'string.unquoted.block.yaml');
    lacksScope(d, 13, 'plain text', 'meta.embedded');
  });

  void test('escapes, `#` inside plain scalars, aliases, instruction ids in flow sequences', async () => {
    const d = await inline(
      [
        'system: "\\sqrt is not an escape, \\\\sqrt and \\x41 and \\u00e9 are"',
        "note: 'it''s' # a comment needs a space before '#'",
        'answer: C# and issue#42 are text',
        'tags: *gsm',
        'verify: { constraints: [punctuation:no_comma, length_constraints:number_words: { relation: at least, num_words: 5 }] }',
        '',
      ].join('\n'),
    );
    hasScope(d, 0, '\\s', 'invalid.illegal.escape.yaml');
    hasScope(d, 0, '\\\\', 'constant.character.escape.yaml');
    hasScope(d, 0, '\\x41', 'constant.character.escape.yaml');
    hasScope(d, 0, '\\u00e9', 'constant.character.escape.yaml');
    hasScope(d, 1, "''", 'constant.character.escape.single-quote.yaml');
    hasScope(d, 1, '# a comment', 'comment.line.number-sign.yaml');
    hasScope(d, 2, 'C# and issue#42 are text', 'string.unquoted.plain.out.yaml');
    lacksScope(d, 2, 'C# and issue#42 are text', 'comment');
    hasScope(d, 3, 'gsm', 'variable.other.alias.yaml');
    hasScope(d, 3, '*', 'punctuation.definition.alias.yaml');
    hasScope(d, 4, 'constraints', 'support.type.verifier.vtask');
    hasScope(d, 4, 'punctuation:no_comma', 'support.function.instruction.vtask');
    hasScope(d, 4, 'length_constraints:number_words', 'support.function.instruction.vtask');
    lacksScope(d, 4, 'relation', 'support');
  });
});

void describe('language configuration', () => {
  const config = readJson('language-configuration.json') as {
    comments: { lineComment: string };
    brackets: [string, string][];
    autoClosingPairs: { open: string; close: string }[];
    surroundingPairs: [string, string][];
    folding: { offSide: boolean; markers: { start: string; end: string } };
    wordPattern: string;
    indentationRules: { increaseIndentPattern: string; decreaseIndentPattern: string };
    onEnterRules: { beforeText: string; action: { indent: string; appendText?: string } }[];
  };

  void test('comments, brackets, pairs and indentation-based folding', () => {
    assert.equal(config.comments.lineComment, '#');
    assert.deepEqual(config.brackets, [
      ['{', '}'],
      ['[', ']'],
    ]);
    for (const open of ['{', '[', '"', "'"])
      assert.ok(
        config.autoClosingPairs.some((p) => p.open === open),
        `no auto-closing ${open}`,
      );
    for (const open of ['{', '[', '"', "'"])
      assert.ok(
        config.surroundingPairs.some((p) => p[0] === open),
        `no surrounding ${open}`,
      );
    assert.equal(config.folding.offSide, true);
    const start = new RegExp(config.folding.markers.start);
    const end = new RegExp(config.folding.markers.end);
    assert.ok(start.test('  # region math tasks'));
    assert.ok(end.test('  # endregion'));
    assert.ok(!start.test('  # endregion'));
    assert.ok(!start.test('  # regional tasks'));
  });

  void test('the word pattern keeps instruction and task ids whole', () => {
    const words = (line: string): string[] => [...(line.match(new RegExp(config.wordPattern, 'g')) ?? [])];
    assert.ok(
      words('  - length_constraints:number_words: { num_words: 300 }').includes('length_constraints:number_words'),
    );
    assert.ok(words('  - id: gsm8k/0001  # first').includes('gsm8k/0001'));
    assert.ok(words('- vtask:words_start_with').includes('vtask:words_start_with'));
    assert.deepEqual(words('answer: 72'), ['answer', '72']);
    assert.deepEqual(words('temperature: -0.5'), ['temperature', '-0.5']);
    assert.ok(!new RegExp(config.wordPattern).test(''), 'the word pattern must not match an empty string');
  });

  void test('indentation follows keys, block scalars and flow collections', () => {
    const increase = new RegExp(config.indentationRules.increaseIndentPattern);
    for (const line of [
      'tasks:',
      '    verify:',
      '    prompt: |',
      '    prompt: >-   # folded',
      '  - |',
      '      constraints:  # list',
      '  models: {',
      '    answers: [',
    ]) {
      assert.ok(increase.test(line), `should indent after ${JSON.stringify(line)}`);
    }
    for (const line of ['    answer: 42', '  - id: gsm8k/0001', '    # note:', '    prompt: "a: b"']) {
      assert.ok(!increase.test(line), `should not indent after ${JSON.stringify(line)}`);
    }
    assert.ok(new RegExp(config.indentationRules.decreaseIndentPattern).test('  }'));
    const rule = (line: string) => config.onEnterRules.find((r) => new RegExp(r.beforeText).test(line))?.action;
    assert.deepEqual(rule('  - response: |'), { indent: 'indent', appendText: '  ' });
    assert.deepEqual(rule('  - verify:'), { indent: 'indent', appendText: '  ' });
    assert.deepEqual(rule('  - id: gsm8k/0001'), { indent: 'none', appendText: '  ' });
    assert.equal(rule('    - punctuation:no_comma'), undefined);
    assert.equal(rule('    prompt: hello'), undefined);
  });
});

void describe('snippets', () => {
  type Snippet = { prefix: string | string[]; body: string | string[]; description?: string };
  const snippets = readJson('snippets/vtask.code-snippets') as Record<string, Snippet>;
  const bodyOf = (s: Snippet) => (Array.isArray(s.body) ? s.body.join('\n') : s.body);
  const prefixes = Object.values(snippets).flatMap((s) => (Array.isArray(s.prefix) ? s.prefix : [s.prefix]));

  void test('are strict JSON with the expected prefixes', () => {
    for (const p of [
      'task',
      'vtask',
      'case',
      'verify-math',
      'verify-constraints',
      'verify-code',
      'verify-json',
      'verify-match',
    ]) {
      assert.ok(prefixes.includes(p), `no snippet with prefix ${p}`);
    }
    for (const [name, s] of Object.entries(snippets)) {
      assert.ok(bodyOf(s).length > 0 && s.description, `${name} needs a body and a description`);
    }
  });

  void test('every snippet, with each choice, expands to valid YAML', () => {
    for (const [name, s] of Object.entries(snippets)) {
      const variants = expansions(bodyOf(s));
      assert.ok(variants.length >= 1);
      for (const text of variants) {
        const doc = parseDocument(text);
        assert.deepEqual(
          doc.errors.map((e) => e.message),
          [],
          `${name} expands to invalid YAML:\n${text}`,
        );
        assert.deepEqual(
          doc.warnings.map((e) => e.message),
          [],
          `${name} expands with YAML warnings:\n${text}`,
        );
        assert.ok(doc.toJS() !== null, `${name} expands to nothing`);
      }
    }
  });

  void test('the task and file snippets have the shape of the format', () => {
    const byPrefix = (p: string) =>
      Object.values(snippets).find((s) => s.prefix === p || (Array.isArray(s.prefix) && s.prefix.includes(p)));
    const kinds = ['math', 'constraints', 'match', 'code'];
    const seen = new Set<string>();
    for (const text of expansions(bodyOf(byPrefix('task')!))) {
      const tasks = parseDocument(text).toJS() as Record<string, unknown>[];
      assert.equal(tasks.length, 1);
      const task = tasks[0]!;
      assert.deepEqual(Object.keys(task), ['id', 'prompt', 'verify', 'cases']);
      const verifier = Object.keys(task['verify'] as object);
      assert.equal(verifier.length, 1);
      seen.add(verifier[0]!);
      assert.deepEqual(
        (task['cases'] as { expect: string }[]).map((c) => c.expect),
        ['pass', 'fail'],
      );
    }
    assert.deepEqual([...seen].sort(), [...kinds].sort());
    const file = parseDocument(expansions(bodyOf(byPrefix('vtask')!))[0]!).toJS() as Record<string, unknown>;
    assert.equal(file['vtask'], 1);
    assert.ok(file['defaults'] && typeof file['defaults'] === 'object');
    const [task] = file['tasks'] as { id: string; verify: object }[];
    assert.equal(task?.id, 'shard/0001');
    assert.deepEqual(Object.keys(task?.verify ?? {}), ['math']);
  });

  void test('expanded snippets highlight as task files', async () => {
    const byPrefix = (p: string) => Object.values(snippets).find((s) => s.prefix === p)!;
    const file = await inline(expansions(bodyOf(byPrefix('vtask')))[0]!);
    hasScope(file, file.find('vtask: 1'), 'vtask', 'keyword.other.section.vtask');
    hasScope(file, file.find('- id:'), 'shard/0001', 'entity.name.function.task-id.vtask');
    hasScope(file, file.find('math:'), 'math', 'support.type.verifier.vtask');
    const constraints = await inline(
      `verify:\n${expansions(bodyOf(byPrefix('verify-constraints')))[0]!.replace(/^/gm, '  ')}\n`,
    );
    hasScope(constraints, 2, 'length_constraints:number_words', 'support.function.instruction.vtask');
    hasScope(constraints, 3, 'punctuation:no_comma', 'support.function.instruction.vtask');
    const asserts = await inline(
      `verify:\n${expansions(bodyOf(byPrefix('verify-code-asserts')))[0]!.replace(/^/gm, '  ')}\n`,
    );
    hasScope(asserts, asserts.find('assert solve'), 'assert solve(2) == 4', 'meta.embedded.block.python');
  });
});

// --- A small expander for VS Code snippet syntax, enough for the bodies above ---------------------

const SNIPPET_VARIABLES: Record<string, string> = { TM_FILENAME: 'shard.vtask', TM_FILENAME_BASE: 'shard' };

/**
 * Expands a snippet body the way VS Code inserts it before any typing: placeholders become their
 * defaults, choices their `choice`-th option (the last one when there are fewer), variables their
 * values, tab stops without a default take the default given elsewhere (mirrors), `$0` nothing.
 */
function expandSnippet(src: string, choice: number): string {
  const defaults = new Map<number, string>();
  const MIRROR = (n: number) => `\u0000${n}\u0000`;
  let i = 0;

  function text(inPlaceholder: boolean): string {
    let out = '';
    while (i < src.length) {
      const c = src[i]!;
      if (c === '\\' && i + 1 < src.length && '$}\\'.includes(src[i + 1]!)) {
        out += src[i + 1];
        i += 2;
        continue;
      }
      if (c === '}' && inPlaceholder) break;
      if (c === '$') {
        out += dollar();
        continue;
      }
      out += c;
      i++;
    }
    return out;
  }

  function dollar(): string {
    const rest = src.slice(i);
    let m: RegExpMatchArray | null;
    if ((m = /^\$(\d+)/.exec(rest))) {
      i += m[0].length;
      return MIRROR(Number(m[1]));
    }
    if ((m = /^\$([A-Z_][A-Z_0-9]*)/.exec(rest))) {
      i += m[0].length;
      return SNIPPET_VARIABLES[m[1]!] ?? m[1]!;
    }
    if ((m = /^\$\{(\d+)\}/.exec(rest))) {
      i += m[0].length;
      return MIRROR(Number(m[1]));
    }
    if ((m = /^\$\{(\d+):/.exec(rest))) {
      i += m[0].length;
      const value = text(true);
      assert.equal(src[i], '}', `unclosed placeholder in ${src}`);
      i++;
      const n = Number(m[1]);
      if (!defaults.has(n)) defaults.set(n, value);
      return value;
    }
    if ((m = /^\$\{(\d+)\|/.exec(rest))) {
      i += m[0].length;
      const options: string[] = [];
      let current = '';
      for (;;) {
        assert.ok(i < src.length, `unclosed choice in ${src}`);
        const c = src[i]!;
        if (c === '\\' && ',|\\'.includes(src[i + 1] ?? '')) {
          current += src[i + 1];
          i += 2;
          continue;
        }
        if (c === ',') {
          options.push(current);
          current = '';
          i++;
          continue;
        }
        if (c === '|' && src[i + 1] === '}') {
          options.push(current);
          i += 2;
          break;
        }
        current += c;
        i++;
      }
      const value = options[Math.min(choice, options.length - 1)]!;
      const n = Number(m[1]);
      if (!defaults.has(n)) defaults.set(n, value);
      return value;
    }
    if ((m = /^\$\{([A-Z_][A-Z_0-9]*)\}/.exec(rest))) {
      i += m[0].length;
      return SNIPPET_VARIABLES[m[1]!] ?? m[1]!;
    }
    if ((m = /^\$\{([A-Z_][A-Z_0-9]*):/.exec(rest))) {
      i += m[0].length;
      const fallback = text(true);
      i++;
      return SNIPPET_VARIABLES[m[1]!] ?? fallback;
    }
    i++;
    return '$';
  }

  const expanded = text(false);
  return expanded.replace(/\u0000(\d+)\u0000/g, (_, n: string) => defaults.get(Number(n)) ?? '');
}

/** Every distinct expansion of a body, one per choice index. */
function expansions(body: string): string[] {
  const seen: string[] = [];
  for (let k = 0; k < 16; k++) {
    const text = expandSnippet(body, k);
    if (seen.includes(text)) break;
    seen.push(text);
  }
  return seen;
}
