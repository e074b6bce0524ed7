// Where a profile's secrets may go: a task file's profiles only to endpoints the user allowed,
// none in an untrusted workspace; the user's own profiles as they are. What `vtask check` and
// the editor show at the profile comes from `withheldIssues`.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { resolveProfile } from '../../src/core/sampling/profiles';
import { parseEndpointRule, setSecretTrust, withheldIssues } from '../../src/core/sampling/trust';
import { parseTaskFile } from '../../src/core/taskfile/parse';

const entry = {
  base_url: 'https://gw.example.com/v1',
  model: 'm',
  api_key_env: 'MY_KEY',
  headers: { 'X-Token': '${env:OTHER}', 'X-Org': 'acme' },
};

afterEach(() => setSecretTrust({ rules: [], workspaceTrusted: true }));

test('a file profile loses its key and ${env:} headers unless its endpoint is allowed', () => {
  const p = resolveProfile({ name: 'theirs', models: { theirs: entry } });
  assert.equal(p.apiKeyEnv, undefined);
  assert.deepEqual(p.headers, { 'X-Org': 'acme' });
  assert.match(p.withheld ?? '', /\$MY_KEY, \$OTHER are not sent to https:\/\/gw\.example\.com\/v1/);

  setSecretTrust({ rules: [parseEndpointRule('https://gw.example.com/v1')], workspaceTrusted: true });
  const allowed = resolveProfile({ name: 'theirs', models: { theirs: entry } });
  assert.equal(allowed.apiKeyEnv, 'MY_KEY');
  assert.deepEqual(allowed.headers, entry.headers);
  assert.equal(allowed.withheld, undefined);
});

test('an allowance covers its URL and what is below it, on the same scheme, host and port only', () => {
  const at = (rule: string, url: string): boolean => {
    setSecretTrust({ rules: [parseEndpointRule(rule)], workspaceTrusted: true });
    return (
      resolveProfile({ name: 'p', models: { p: { ...entry, base_url: url, headers: undefined } } }).apiKeyEnv ===
      'MY_KEY'
    );
  };
  assert.equal(at('https://gw.example.com/v1', 'https://gw.example.com/v1/'), true);
  assert.equal(at('https://gw.example.com', 'https://gw.example.com/openai/v1'), true);
  assert.equal(at('https://gw.example.com/v1', 'https://gw.example.com/v10'), false);
  assert.equal(at('https://gw.example.com/v1', 'http://gw.example.com/v1'), false);
  assert.equal(at('gw.example.com', 'https://gw.example.com.evil.net/v1'), false);
  assert.equal(at('gw.example.com:8443', 'https://gw.example.com/v1'), false);
  assert.equal(at('MY_KEY@gw.example.com', 'https://gw.example.com/v1'), true);
  assert.equal(at('OTHER@gw.example.com', 'https://gw.example.com/v1'), false);
  assert.throws(() => parseEndpointRule('ftp://x'), /not an endpoint/);
});

test("in an untrusted workspace a file profile gets no secret, allowed or not; the user's own profiles keep theirs", () => {
  setSecretTrust({ rules: [parseEndpointRule('gw.example.com')], workspaceTrusted: false });
  const p = resolveProfile({ name: 'theirs', models: { theirs: entry } });
  assert.equal(p.apiKeyEnv, undefined);
  assert.match(p.withheld ?? '', /the workspace is not trusted/);
  const mine = resolveProfile({ name: 'mine', models: {}, userModels: { mine: entry } });
  assert.equal(mine.apiKeyEnv, 'MY_KEY');
  assert.deepEqual(mine.headers, entry.headers);
  // A file's profile of the same name is the file's, and guarded.
  const shadow = resolveProfile({
    name: 'mine',
    models: { mine: { ...entry, base_url: 'https://evil.example/v1' } },
    userModels: { mine: entry },
  });
  assert.equal(shadow.apiKeyEnv, undefined);
});

test("withheldIssues warns at the profile's name, with its line and column", () => {
  const text = `vtask: 1\nmodels:\n  ok: { base_url: "https://gw.example.com/v1", model: m }\n  theirs: { base_url: "https://gw.example.com/v1", model: m, api_key_env: MY_KEY }\ntasks:\n  - { id: a, prompt: p, verify: { math: { answer: "1" } } }\n`;
  const file = parseTaskFile(text);
  const [issue, ...more] = withheldIssues(file.parts);
  assert.equal(more.length, 0);
  assert.equal(issue?.severity, 'warning');
  assert.equal(text.slice(issue!.start, issue!.end), 'theirs');
  assert.deepEqual(file.lines.position(issue!.start), { line: 3, character: 2 });
  setSecretTrust({ rules: [parseEndpointRule('MY_KEY@gw.example.com')], workspaceTrusted: true });
  assert.deepEqual(withheldIssues(file.parts), []);
});
