// A task file's model profile cannot choose where the user's secrets go: `vtask run` against a
// real local server that records the headers it receives. With the file alone neither the key
// (`api_key_env`) nor a `${env:…}` header arrives, and stderr says why; with the user's
// allowance on the command line they arrive; `vtask check` warns at the profile's line.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runCliProcess } from '../support/cliProcess';
import { OpenAIServer } from '../support/openaiServer';

const server = new OpenAIServer({ answer: () => 'So \\boxed{72}.' });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-endpoint-trust-'));
const file = path.join(dir, 'data.vtask');
const SECRETS = { AWS_SECRET_ACCESS_KEY: 'aws-secret-0123456789abcdef', GITHUB_TOKEN: 'ghp-token-0123456789abcdef' };

before(async () => {
  await server.listen();
  fs.writeFileSync(
    file,
    `vtask: 1
models:
  theirs:
    base_url: "${server.url}"
    model: test-model
    api_key_env: AWS_SECRET_ACCESS_KEY
    headers: { X-Token: "\${env:GITHUB_TOKEN}", X-Org: acme }
tasks:
  - id: clips
    model: theirs
    prompt: How many clips?
    samples: 1
    verify: { math: { answer: "72" } }
`,
  );
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The user's configuration folder: none unless a test writes one. */
const config = path.join(dir, 'config');

/** Runs the file once (no cache) and returns what the server received, and the CLI's stderr. */
async function runOnce(...flags: string[]): Promise<{ headers: Record<string, unknown>; stderr: string }> {
  server.reset();
  const r = await runCliProcess(['run', file, '--fresh', '--cache-dir', path.join(dir, 'cache'), ...flags], {
    ...SECRETS,
    XDG_CONFIG_HOME: config,
  });
  assert.equal(r.code, 0, r.stderr);
  const req = server.samplingRequests[0];
  assert.ok(req, `no request reached the server\n${r.stderr}`);
  return { headers: req.headers as Record<string, unknown>, stderr: r.stderr };
}

const received = (headers: Record<string, unknown>): string => JSON.stringify(headers);

test('a task file alone sends neither the key it names nor its ${env:} headers, and says so', async () => {
  const { headers, stderr } = await runOnce();
  for (const secret of Object.values(SECRETS))
    assert.ok(!received(headers).includes(secret), `a secret reached the server: ${received(headers)}`);
  assert.equal(headers.authorization, undefined);
  assert.equal(headers['x-token'], undefined);
  // Headers without secrets still go.
  assert.equal(headers['x-org'], 'acme');
  assert.match(
    stderr,
    /warning: model profile `theirs` is defined in the task file: \$AWS_SECRET_ACCESS_KEY, \$GITHUB_TOKEN are not sent to http:\/\/127\.0\.0\.1:\d+\/v1 unless you allow that endpoint \(--trust-endpoint/,
  );
  // Once, not per request.
  assert.equal(stderr.match(/is defined in the task file/g)?.length, 1);
});

test('--trust-endpoint URL lets the profile send its key and headers there', async () => {
  const { headers, stderr } = await runOnce('--trust-endpoint', server.url);
  assert.equal(headers.authorization, `Bearer ${SECRETS.AWS_SECRET_ACCESS_KEY}`);
  assert.equal(headers['x-token'], SECRETS.GITHUB_TOKEN);
  assert.doesNotMatch(stderr, /defined in the task file/);
});

test('--allow-key-env VAR@HOST allows that variable only', async () => {
  const { headers, stderr } = await runOnce(`--allow-key-env=AWS_SECRET_ACCESS_KEY@127.0.0.1:${server.port}`);
  assert.equal(headers.authorization, `Bearer ${SECRETS.AWS_SECRET_ACCESS_KEY}`);
  assert.equal(headers['x-token'], undefined);
  assert.match(stderr, /\$GITHUB_TOKEN is not sent to/);
  assert.doesNotMatch(stderr, /\$AWS_SECRET_ACCESS_KEY is not sent/);
});

test("the user's ~/.config/vtask/config.json allows endpoints as the flags do; a broken one is said and ignored", async () => {
  fs.mkdirSync(path.join(config, 'vtask'), { recursive: true });
  const configFile = path.join(config, 'vtask', 'config.json');
  fs.writeFileSync(configFile, JSON.stringify({ trustedEndpoints: [`127.0.0.1:${server.port}`] }));
  try {
    const { headers, stderr } = await runOnce();
    assert.equal(headers.authorization, `Bearer ${SECRETS.AWS_SECRET_ACCESS_KEY}`);
    assert.equal(headers['x-token'], SECRETS.GITHUB_TOKEN);
    assert.doesNotMatch(stderr, /warning/);
    fs.writeFileSync(configFile, JSON.stringify({ trustedEndpoints: ['ftp://x'] }));
    const broken = await runOnce();
    assert.equal(broken.headers.authorization, undefined);
    assert.match(broken.stderr, /config\.json is ignored: 'ftp:\/\/x' is not an endpoint/);
  } finally {
    fs.rmSync(config, { recursive: true, force: true });
  }
});

test('an allowance for another host or port allows nothing here', async () => {
  const { headers } = await runOnce(
    '--trust-endpoint',
    `http://127.0.0.1:${server.port + 1}/v1`,
    '--allow-key-env',
    'GITHUB_TOKEN@example.com',
  );
  assert.ok(!Object.values(SECRETS).some((s) => received(headers).includes(s)));
});

test('vtask check warns at the profile, and not once the endpoint is allowed', async () => {
  const r = await runCliProcess(['check', file]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    new RegExp(
      `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:3: warning: model profile \`theirs\` is defined in the task file: \\$AWS_SECRET_ACCESS_KEY, \\$GITHUB_TOKEN are not sent to`,
      'm',
    ),
  );
  assert.match(r.stderr, /1 warning/);
  const allowed = await runCliProcess(['check', file, '--trust-endpoint', `127.0.0.1:${server.port}`]);
  assert.doesNotMatch(allowed.stdout, /warning/);
});

test('a malformed allowance is a usage error', async () => {
  const r = await runCliProcess(['check', file, '--allow-key-env', 'example.com']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--allow-key-env takes VAR@HOST/);
});
