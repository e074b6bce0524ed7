// The `script` verifier: JS modules and executables, isolated in a child process, with a time
// limit and clear errors for crashes, garbage output and malformed verdicts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scriptKind } from '../../src/core/verifiers/script';
import type { VerifierKind } from '../../src/core/verifiers/kind';
import { validateScriptVerdict } from '../../src/core/verifiers/code/script';
import type { Verdict, VerifyContext } from '../../src/core/verifiers/verdict';

// Scripts live in a temporary project (readable by the sandbox's user, unlike a home folder).
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-script-test-'));
fs.chmodSync(DIR, 0o755);
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

function write(name: string, text: string, mode = 0o644): void {
  fs.mkdirSync(path.dirname(path.join(DIR, name)), { recursive: true });
  fs.writeFileSync(path.join(DIR, name), text, { mode });
}

function ctx(opts: { trusted?: boolean; signal?: AbortSignal } = {}): VerifyContext {
  return {
    task: {
      id: 'task-1',
      prompt: 'Say hi',
      messages: [{ role: 'user', content: 'Say hi' }],
      meta: { level: 2 },
      dir: DIR,
    },
    signal: opts.signal ?? new AbortController().signal,
    trusted: opts.trusted ?? true,
    child: () => Promise.reject(new Error('no children here')),
  };
}

async function check(response: string, params: Record<string, unknown>, c = ctx()): Promise<Verdict> {
  // Parameters as a task file gives them, checked the way the registry checks them.
  const kind: VerifierKind = scriptKind;
  assert.ok(kind.check);
  return kind.check(response, params, c);
}

write('package.json', '{"type": "commonjs"}\n');
write('lib/words.mjs', 'export const GREETING = "hi";\n');
write(
  'verify.mjs',
  [
    'import { GREETING } from "./lib/words.mjs";',
    'export function verify(response, task) {',
    '  console.log("logging does not confuse the verdict");',
    '  const pass = response.toLowerCase().includes(GREETING);',
    '  return { pass, score: pass ? 1 : 0.25, reason: `task ${task.id} level ${task.meta.level}: ${pass ? "greeted" : "no greeting"}`, details: { length: response.length } };',
    '}',
  ].join('\n'),
);
write('async.js', 'module.exports.verify = async (response) => ({ pass: response.length > 3 });\n');
write('throws.mjs', 'export function verify() { throw new Error("the grader broke"); }\n');
write('loops.mjs', 'export function verify() { for (;;) {} }\n');
write('noexport.mjs', 'export const x = 1;\n');
write('badshape.mjs', 'export const verify = () => ({ pass: "yes", score: 3 });\n');
write(
  'network.mjs',
  'import net from "node:net";\nexport const verify = () => new Promise((resolve) => { const s = net.connect(9, "127.0.0.1"); s.on("connect", () => resolve({ pass: true, reason: "connected" })); s.on("error", (e) => resolve({ pass: false, reason: e.code })); });\n',
);
write(
  'grade.py',
  '#!/usr/bin/env python3\nimport json, sys\nd = json.load(sys.stdin)\nprint(json.dumps({"pass": d["response"].strip() == "42", "reason": "checked " + d["task"]["id"] + " " + " ".join(sys.argv[1:])}))\n',
  0o755,
);
write('garbage.sh', '#!/bin/sh\necho "Hello world, I am not JSON"\n', 0o755);
write('crash.sh', '#!/bin/sh\necho "boom: segfault in grader" >&2\nexit 139\n', 0o755);
write('notexec.sh', '#!/bin/sh\necho \'{"pass": true}\'\n', 0o644);

void test('a JS module exporting verify gives the verdict, with the task and its folder', async () => {
  const ok = await check('Hi there', { path: './verify.mjs' });
  assert.equal(ok.pass, true, ok.reason);
  assert.equal(ok.score, 1);
  assert.equal(ok.reason, 'task task-1 level 2: greeted');
  assert.equal(ok.details.length, 8);
  assert.equal(typeof (ok.details.isolation as { method: string }).method, 'string');
  const no = await check('Bye', { path: 'verify.mjs' });
  assert.equal(no.pass, false);
  assert.equal(no.score, 0.25);
  assert.equal(no.error, undefined);
  const cjs = await check('long enough', { path: 'async.js' });
  assert.equal(cjs.pass, true, cjs.reason);
  assert.equal(cjs.reason, 'the script async.js passed the response');
});

void test('an executable reads {response, task} on stdin and prints the verdict', async () => {
  const v = await check('42\n', { path: 'grade.py', args: ['--strict'] });
  assert.equal(v.pass, true, v.reason);
  assert.equal(v.reason, 'checked task-1 --strict');
  const f = await check('41', { path: 'grade.py' });
  assert.equal(f.pass, false);
  assert.equal(f.score, 0);
});

void test('garbage output is a crash that quotes the output', async () => {
  const v = await check('x', { path: 'garbage.sh' });
  assert.equal(v.error, 'crash');
  assert.equal(
    v.reason,
    "the script garbage.sh printed something that is not a JSON verdict: 'Hello world, I am not JSON'",
  );
});

void test('a crashing script is a crash that says how it ended', async () => {
  const sh = await check('x', { path: 'crash.sh' });
  assert.equal(sh.error, 'crash');
  assert.match(sh.reason, /exited with code 139.*: boom: segfault in grader/);
  const mod = await check('x', { path: 'throws.mjs' });
  assert.equal(mod.error, 'crash');
  assert.match(mod.reason, /crashed \(exited with code 1\).*the grader broke/);
  const none = await check('x', { path: 'noexport.mjs' });
  assert.equal(none.error, 'crash');
  assert.match(none.reason, /does not export a function verify/);
});

void test('a malformed verdict is rejected with what is wrong', async () => {
  const v = await check('x', { path: 'badshape.mjs' });
  assert.equal(v.error, 'crash');
  assert.equal(v.reason, 'the script badshape.mjs returned an invalid verdict: `pass` must be true or false');
  assert.deepEqual(validateScriptVerdict({ pass: true, score: 2 }), {
    problem: '`score` must be a number from 0 to 1',
  });
  assert.deepEqual(validateScriptVerdict(true), { verdict: { pass: true } });
  assert.ok('problem' in validateScriptVerdict([1]));
});

void test('an endless script times out without taking the host down', async () => {
  const t0 = Date.now();
  const v = await check('x', { path: 'loops.mjs', timeout_ms: 1000 });
  assert.equal(v.error, 'timeout');
  assert.equal(v.reason, 'the script loops.mjs did not finish within 1000 ms');
  assert.ok(Date.now() - t0 < 8000);
});

void test('scripts have no network', async (t) => {
  const v = await check('x', { path: 'network.mjs' });
  if ((v.details.isolation as { method: string }).method === 'process')
    return t.skip('needs: bwrap or sandbox-exec (a plain process is not network-isolated)');
  assert.equal(v.pass, false, v.reason);
  assert.notEqual(v.reason, 'connected');
});

void test('missing and non-executable scripts are reported, untrusted workspaces refused', async () => {
  const missing = await check('x', { path: 'nope.mjs' });
  assert.equal(missing.error, 'unavailable');
  assert.match(missing.reason, /the script nope\.mjs was not found/);
  const notexec = await check('x', { path: 'notexec.sh' });
  assert.equal(notexec.error, 'unavailable');
  assert.match(notexec.reason, /chmod \+x/);
  const untrusted = await check('x', { path: 'verify.mjs' }, ctx({ trusted: false }));
  assert.equal(untrusted.error, 'refused');
  assert.equal(untrusted.reason, 'script verifiers do not run in an untrusted workspace');
});

void test('cancellation stops a running script', async () => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 300);
  const v = await check('x', { path: 'loops.mjs', timeout_ms: 30_000 }, ctx({ signal: ac.signal }));
  assert.equal(v.error, 'timeout');
  assert.equal(v.reason, 'cancelled');
});
