// Who may make `vtask serve` run what, as real server processes over real HTTP: inline verifiers
// that name a program are refused unless the operator allowed them (and then only inside the
// served folders), the served files' own scripts run by task id, a foreign Host or Origin and a
// non-JSON body are refused, and a server beyond loopback needs a token.
//
// The served script notes each run in a file outside the sandbox, so "nothing ran" is checked
// on disk: these servers run scripts in the process sandbox (weak isolation, allowed here),
// whose writes land on the real file system, where the full sandbox would keep them.
import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CLI } from '../support/cliProcess';
import { startServe } from '../support/serveProcess';

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-serve-security-'));
const SERVED = path.join(DIR, 'served');
const MARKS = path.join(DIR, 'marks');
const RAN = path.join(MARKS, 'ran');
const SANDBOX = { VTASK_SANDBOX: 'process', VTASK_ALLOW_WEAK_ISOLATION: '1', VTASK_SERVE_TOKEN: '' };

const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill('SIGTERM');
  fs.rmSync(DIR, { recursive: true, force: true });
});

/** A script that notes its first argument in RAN and passes. */
function marker(label: string): string {
  return `#!/bin/sh\necho "${label}:$1" >> ${RAN}\nprintf '{"pass": true, "reason": "ran %s"}\\n' "$1"\n`;
}

before(() => {
  // Readable by the unprivileged user scripts run as under root; the marks writable by it.
  fs.chmodSync(DIR, 0o755);
  fs.mkdirSync(SERVED, { mode: 0o755 });
  fs.mkdirSync(MARKS, { mode: 0o777 });
  fs.chmodSync(MARKS, 0o777);
  // Under root each run is a user of its own: every one of them appends to the same file.
  fs.writeFileSync(RAN, '');
  fs.chmodSync(RAN, 0o666);
  fs.mkdirSync(path.join(DIR, 'outside'), { mode: 0o755 });
  fs.writeFileSync(path.join(SERVED, 'package.json'), '{}\n');
  fs.writeFileSync(path.join(SERVED, 'mark.sh'), marker('served'), { mode: 0o755 });
  fs.writeFileSync(path.join(DIR, 'outside', 'run.sh'), marker('outside'), { mode: 0o755 });
  fs.writeFileSync(path.join(DIR, 'outside', '.env'), 'SECRET=outside\n', { mode: 0o600 });
  fs.symlinkSync(path.join(DIR, 'outside', 'run.sh'), path.join(SERVED, 'link.sh'));
  fs.writeFileSync(
    path.join(SERVED, 'tasks.vtask'),
    'vtask: 1\ntasks:\n  - id: marked\n    prompt: "Say hi"\n    verify: { script: { path: ./mark.sh, args: [by-task] } }\n  - id: clips\n    prompt: "48 + 24?"\n    verify: { math: { answer: "72" } }\n',
  );
});

function ran(): string {
  return fs.readFileSync(RAN, 'utf8');
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: { results?: { pass: boolean; reason: string }[]; error?: string };
}

/** One request with exactly these headers (fetch would not send a Host of the test's choosing). */
function request(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const body =
    init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  const headers = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers };
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          json: text ? (JSON.parse(text) as Answer['json']) : {},
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function serve(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  cwd?: string,
): Promise<{ url: string; stderr(): string }> {
  const s = await startServe(args, { ...SANDBOX, ...env }, 30_000, cwd);
  children.push(s.child);
  return s;
}

/** What the server wrote on stderr once `line` is among it (its notes may follow "listening on"). */
async function stderrWith(stderr: () => string, line: RegExp): Promise<string> {
  for (const start = Date.now(); Date.now() - start < 10_000; await new Promise((r) => setTimeout(r, 50))) {
    if (line.test(stderr())) return stderr();
  }
  return stderr();
}

/** `token` with its last character changed to another one: a wrong token, surely. */
function wrongBy(token: string): string {
  return token.slice(0, -1) + (token.endsWith('x') ? 'y' : 'x');
}

/**
 * The URL of a server on 0.0.0.0 by an address of this machine beyond loopback (a server of some
 * other test on 127.0.0.1 and the same port would take a loopback connection), else loopback.
 */
function external(url: string): string {
  const ip = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
  return url.replace('0.0.0.0', ip ?? '127.0.0.1');
}

const sh = (label: string) => ({
  script: { path: '/bin/sh', args: ['-c', `echo inline:${label} >> ${RAN}; cat ${path.join(DIR, 'outside', '.env')}`] },
});

test("an inline verifier that names a program is refused, nested or not, and says what to do; the served files' script runs by task id", async () => {
  const { url } = await serve([SERVED]);
  const cases: [unknown, string][] = [
    [sh('plain'), 'verifier.script'],
    [{ all: [{ math: { answer: '1' } }, sh('all')] }, 'verifier.all[1].script'],
    [{ any: [{ all: [sh('deep')] }] }, 'verifier.any[0].all[0].script'],
    [
      {
        weighted: [
          { weight: 1, verify: { match: { answer: 'x' } } },
          { weight: 2, verify: sh('weighted') },
        ],
      },
      'verifier.weighted[1].verify.script',
    ],
    [{ script: { path: '../outside/run.sh', args: ['relative'] } }, 'verifier.script'],
  ];
  for (const [verifier, at] of cases) {
    const r = await request(`${url}/verify`, { body: { verifier, prompt: 'p', responses: ['x'] } });
    assert.equal(r.status, 403, JSON.stringify(r.json));
    assert.equal(r.json.results, undefined);
    assert.ok(r.json.error?.startsWith(`${at} names a program to run`), r.json.error);
    assert.match(r.json.error ?? '', /send \{"task": ID\} instead of \{"verifier": \.\.\.\}/);
    assert.match(r.json.error ?? '', /--allow-inline-programs/);
  }
  const byTask = await request(`${url}/verify`, { body: { task: 'marked', responses: ['hi'] } });
  assert.equal(byTask.status, 200, byTask.json.error);
  assert.deepEqual(
    byTask.json.results?.map((v) => [v.pass, v.reason]),
    [[true, 'ran by-task']],
  );
  assert.equal(ran(), 'served:by-task\n', 'the served script ran once; no inline program ran');
});

test("an inline code verifier still runs the answer with vtask's own interpreter", async () => {
  const { url } = await serve([SERVED]);
  const code = { code: { language: 'python', tests: [{ stdin: '2 3\n', stdout: '5\n' }] } };
  const r = await request(`${url}/verify`, {
    body: {
      verifier: code,
      prompt: 'add',
      responses: ['```python\na, b = map(int, input().split())\nprint(a + b)\n```', '```python\nprint(0)\n```'],
    },
  });
  assert.equal(r.status, 200, r.json.error);
  assert.deepEqual(
    r.json.results?.map((v) => v.pass),
    [true, false],
  );
});

test('a POST that is not application/json is refused (415) before anything runs; JSON with a charset is fine', async () => {
  const { url } = await serve([SERVED]);
  const body = JSON.stringify({ task: 'marked', responses: ['hi'] });
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    const r = await request(`${url}/verify`, { body, headers: { 'content-type': type } });
    assert.equal(r.status, 415, type);
    assert.match(r.json.error ?? '', new RegExp(`Content-Type: application/json, not ${type.split(';')[0]}`));
  }
  const untyped = await request(`${url}/verify`, { body, headers: { 'content-type': '' } });
  assert.equal(untyped.status, 415);
  assert.equal(untyped.json.error, 'the body must be sent as Content-Type: application/json');
  assert.equal(ran(), 'served:by-task\n', 'nothing more ran');
  const ok = await request(`${url}/verify`, {
    body: { task: 'clips', responses: ['72'] },
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
  assert.equal(ok.status, 200, ok.json.error);
});

test("a foreign Host (DNS rebinding) or a web page's Origin is refused; loopback names are served", async () => {
  const { url } = await serve([SERVED]);
  const port = new URL(url).port;
  for (const host of [
    'attacker.example',
    `attacker.example:${port}`,
    `rebind.127.0.0.1.nip.io:${port}`,
    `localhost.attacker.example:${port}`,
  ]) {
    for (const [pathname, body] of [
      ['/health', undefined],
      ['/verify', { task: 'marked', responses: ['hi'] }],
    ] as const) {
      const r = await request(url + pathname, { body, headers: { host } });
      assert.equal(r.status, 403, `${host} ${pathname}`);
      assert.match(r.json.error ?? '', /the Host header '.*' is not a name of this server: .*--allow-host NAME/);
    }
  }
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `127.1.2.3:${port}`, `[::1]:${port}`, 'localhost']) {
    assert.equal((await request(`${url}/health`, { headers: { host } })).status, 200, host);
  }
  const fromPage = await request(`${url}/verify`, {
    body: { task: 'marked', responses: ['hi'] },
    headers: { origin: 'http://127.0.0.1:9' },
  });
  assert.equal(fromPage.status, 403);
  assert.equal(
    fromPage.json.error,
    'requests from web pages are refused (Origin: http://127.0.0.1:9): start the server with --allow-origin http://127.0.0.1:9 to let that page call it',
  );
  const navigated = await request(`${url}/health`, { headers: { 'sec-fetch-site': 'cross-site' } });
  assert.equal(navigated.status, 403);
  assert.equal(ran(), 'served:by-task\n', 'nothing more ran');
});

test('--allow-inline-programs warns, runs inline scripts inside the served folder only; --allow-host and --allow-origin admit what they name', async () => {
  const origin = 'http://127.0.0.1:4321';
  const { url, stderr } = await serve(
    ['served', '--allow-inline-programs', '--allow-host', 'Trainer.Internal', '--allow-origin', origin],
    {},
    DIR,
  );
  const warning = /^warning: --allow-inline-programs: any client may run programs of the served folders/m;
  assert.match(await stderrWith(stderr, warning), warning);
  const inline = await request(`${url}/verify`, {
    body: { verifier: { script: { path: 'served/mark.sh', args: ['inline'] } }, responses: ['hi'] },
  });
  assert.equal(inline.status, 200, inline.json.error);
  assert.equal(inline.json.results?.[0]?.reason, 'ran inline');
  const outside: [string, RegExp][] = [
    ['served/../outside/run.sh', /outside the served folders/],
    [path.join(DIR, 'outside', 'run.sh'), /outside the served folders/],
    ['/bin/sh', /outside the served folders/],
    ['served/link.sh', /outside the served folders/],
  ];
  for (const [p, why] of outside) {
    const r = await request(`${url}/verify`, {
      body: { verifier: { all: [{ script: { path: p, args: ['escaped'] } }] }, responses: ['hi'] },
    });
    assert.equal(r.status, 403, p);
    assert.equal(r.json.error?.startsWith(`verifier.all[0].script.path '${p}' is outside`), true, r.json.error);
    assert.match(r.json.error ?? '', why);
  }
  assert.doesNotMatch(ran(), /escaped/);
  assert.match(ran(), /^served:inline$/m);
  // An allowed name and an allowed page; other pages are still refused.
  const port = new URL(url).port;
  assert.equal((await request(`${url}/health`, { headers: { host: `trainer.internal:${port}` } })).status, 200);
  const preflight = await request(`${url}/verify`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers['access-control-allow-origin'], origin);
  assert.match(String(preflight.headers['access-control-allow-headers']), /content-type/);
  const page = await request(`${url}/verify`, { body: { task: 'clips', responses: ['72'] }, headers: { origin } });
  assert.equal(page.status, 200, page.json.error);
  assert.equal(page.headers['access-control-allow-origin'], origin);
  assert.equal((await request(`${url}/health`, { headers: { origin: 'http://127.0.0.1:4322' } })).status, 403);
});

test('beyond loopback a token is required: generated and printed once when none is given, shared by every worker', async () => {
  const { url, stderr } = await serve([SERVED, '--host', '0.0.0.0', '--workers', '2']);
  const reach = external(url);
  const lines = (await stderrWith(stderr, /^warning: listening on/m)).split('\n');
  const tokenLines = lines.filter((l) => l.startsWith('token: '));
  assert.equal(tokenLines.length, 1, lines.join('\n'));
  const token = /^token: (\S+) \(generated: every request needs "Authorization: Bearer \1"/.exec(
    tokenLines[0] ?? '',
  )?.[1];
  assert.ok(token && token.length >= 32, tokenLines[0]);
  assert.ok(
    lines.some((l) => l.startsWith('warning: listening on 0.0.0.0, beyond this machine')),
    lines.join('\n'),
  );
  const body = { task: 'clips', responses: ['72'] };
  const without = await request(`${reach}/verify`, { body });
  assert.equal(without.status, 401);
  assert.match(without.json.error ?? '', /missing or wrong bearer token/);
  assert.equal(
    // One character changed (the last, to another: a token may end in `x` itself).
    (await request(`${reach}/verify`, { body, headers: { authorization: `Bearer ${wrongBy(token)}` } })).status,
    401,
  );
  // Each worker answers with the same token (several requests reach both).
  const answers = await Promise.all(
    Array.from({ length: 6 }, () =>
      request(`${reach}/verify`, { body, headers: { authorization: `Bearer ${token}` } }),
    ),
  );
  assert.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200, 200, 200, 200],
  );
  // Clients beyond this machine address it by its name or an address of it; others are refused.
  const port = new URL(url).port;
  const auth = { authorization: `Bearer ${token}` };
  assert.equal(
    (await request(`${reach}/health`, { headers: { ...auth, host: `${os.hostname()}:${port}` } })).status,
    200,
  );
  assert.equal(
    (await request(`${reach}/health`, { headers: { ...auth, host: `attacker.example:${port}` } })).status,
    403,
  );
});

test('a token given with --token (or VTASK_SERVE_TOKEN) is required, on loopback too, and never printed', async () => {
  const { url, stderr } = await serve([SERVED, '--token', 'given-token-1']);
  assert.doesNotMatch(stderr(), /given-token-1|token: /);
  assert.equal((await request(`${url}/health`)).status, 401);
  assert.equal((await request(`${url}/health`, { headers: { authorization: 'Bearer given-token-1' } })).status, 200);
  const fromEnv = await serve([SERVED, '--host', '0.0.0.0'], { VTASK_SERVE_TOKEN: 'env-token-2' });
  assert.doesNotMatch(fromEnv.stderr(), /env-token-2|token: /);
  const reach = external(fromEnv.url);
  assert.equal((await request(`${reach}/health`)).status, 401);
  assert.equal((await request(`${reach}/health`, { headers: { authorization: 'Bearer env-token-2' } })).status, 200);
});

test('the help names the new flags; the flags are checked: an origin must be one, a token has no spaces', () => {
  const help = spawnSync(process.execPath, [CLI, 'serve', '--help'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(help.status, 0);
  for (const flag of ['--token T', '--allow-host NAME', '--allow-origin URL', '--allow-inline-programs   RISK'])
    assert.ok(help.stdout.includes(flag), flag);
  for (const [flags, message] of [
    [
      ['--allow-origin', 'example.com'],
      /--allow-origin takes an origin such as http:\/\/localhost:3000, not 'example.com'/,
    ],
    [['--token', 'two words'], /--token takes a token without spaces/],
  ] as const) {
    const r = spawnSync(process.execPath, [CLI, 'serve', SERVED, ...flags, '--port', '0'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, message);
  }
});
