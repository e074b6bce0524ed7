// The reward server's gate on the names and values a request carries: which Host headers are
// this machine's, which listen addresses are loopback, which inline verifiers name a program
// (composites searched), and whether a path stays in the served folders once symlinks are read.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { inlinePrograms, insideRoots } from '../../src/core/serve/inlinePrograms';
import { hostOfHeader, isLoopbackHost, isWildcardHost, normaliseOrigin } from '../../src/core/serve/requestGate';

test('loopback hosts are 127.0.0.0/8, ::1 and localhost, however written; nothing else is', () => {
  for (const h of [
    '127.0.0.1',
    '127.255.0.9',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
    'localhost',
    'LOCALHOST',
    'localhost.',
  ])
    assert.equal(isLoopbackHost(h), true, h);
  for (const h of [
    '0.0.0.0',
    '::',
    '128.0.0.1',
    '10.0.0.1',
    '::ffff:10.0.0.1',
    'localhost.attacker.example',
    'a.localhost.evil',
    '127.0.0.1.nip.io',
    'myhost',
    '',
  ])
    assert.equal(isLoopbackHost(h), false, h);
  for (const h of ['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0']) assert.equal(isWildcardHost(h), true, h);
  assert.equal(isWildcardHost('127.0.0.1'), false);
});

test('a Host header gives its name without the port; a malformed one gives nothing', () => {
  assert.equal(hostOfHeader('LocalHost:8765'), 'localhost');
  assert.equal(hostOfHeader('[::1]:8765'), '::1');
  assert.equal(hostOfHeader('127.0.0.1'), '127.0.0.1');
  assert.equal(hostOfHeader('example.com.:80'), 'example.com');
  for (const h of [
    undefined,
    '',
    'user@127.0.0.1',
    '127.0.0.1:80:80',
    '127.0.0.1/x',
    '[::1',
    'a b',
    '127.0.0.1:123456',
  ])
    assert.equal(hostOfHeader(h), undefined, String(h));
});

test('--allow-origin takes web origins only, in their canonical form', () => {
  assert.equal(normaliseOrigin('http://LocalHost:3000/path'), 'http://localhost:3000');
  assert.equal(normaliseOrigin('https://example.com:443'), 'https://example.com');
  assert.equal(normaliseOrigin('null'), 'null');
  for (const o of ['example.com', 'file:///tmp/x.html', 'javascript:alert(1)', ''])
    assert.equal(normaliseOrigin(o), undefined, o);
});

test('inline programs are found wherever a verifier may nest; code and other kinds name none', () => {
  const script = { script: { path: './v.sh' } };
  assert.deepEqual(inlinePrograms(script), [{ at: 'verifier.script', path: './v.sh' }]);
  assert.deepEqual(
    inlinePrograms({ all: { of: [{ math: { answer: '1' } }, { any: [script] }] } }).map((p) => p.at),
    ['verifier.all[1].any[0].script'],
  );
  assert.deepEqual(
    inlinePrograms({
      weighted: [
        { weight: 1, verify: script },
        { weight: 1, verify: { all: [script, script] } },
      ],
    }).map((p) => p.at),
    [
      'verifier.weighted[0].verify.script',
      'verifier.weighted[1].verify.all[0].script',
      'verifier.weighted[1].verify.all[1].script',
    ],
  );
  for (const v of [
    { code: { language: 'python', tests: [{ stdout: '1' }] } },
    { state: { path: 'a.b', equals: 1 } },
    { json: { schema: { properties: { script: { type: 'string' } } } } },
    { constraints: ['punctuation:no_comma'] },
  ]) {
    assert.deepEqual(inlinePrograms(v), [], JSON.stringify(v));
  }
});

const DIR = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-serve-gate-')));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

test('a path is inside the served folders only once `..` and symlinks are resolved', () => {
  const served = path.join(DIR, 'served');
  fs.mkdirSync(path.join(served, 'sub'), { recursive: true });
  fs.mkdirSync(path.join(DIR, 'servedx'));
  fs.writeFileSync(path.join(served, 'v.sh'), '');
  fs.writeFileSync(path.join(DIR, 'out.sh'), '');
  fs.symlinkSync(path.join(DIR, 'out.sh'), path.join(served, 'link.sh'));
  fs.symlinkSync(DIR, path.join(served, 'up'));
  fs.symlinkSync(path.join(served, 'v.sh'), path.join(DIR, 'in.sh'));
  const roots = [served];
  for (const p of ['v.sh', 'sub/../v.sh', 'sub/missing.sh', 'sub'])
    assert.equal(insideRoots(path.join(served, p), roots), true, p);
  for (const p of ['../out.sh', 'link.sh', 'up/out.sh', '../servedx/a.sh', '..'])
    assert.equal(insideRoots(path.join(served, p), roots), false, p);
  assert.equal(insideRoots('/bin/sh', roots), false);
  // A link from outside to a served file is that file.
  assert.equal(insideRoots(path.join(DIR, 'in.sh'), roots), true);
});
