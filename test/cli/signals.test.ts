// Stopping the CLI: SIGTERM and Ctrl-C end a command busy on a large input within a second or
// two, whatever it is doing (a run that has samples to keep stops cleanly: killLoop.test.ts); a path option naming a special file (a device, a FIFO, /proc) is
// refused at once with a clear error instead of being read forever. Real processes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCliProcess, startCli } from '../support/cliProcess';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-signals-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const TASK = 'vtask: 1\ntasks:\n  - id: t\n    prompt: "2+2?"\n    verify: { math: { answer: "4" } }\n';

/** A task file that takes `vtask check` many seconds: 200,000 tasks with cases (40,000 take under 1.5 s now). */
function bigFile(): string {
  const file = path.join(dir, 'big.vtask');
  const task = (i: number): string =>
    `  - id: t${i}\n    prompt: "What is ${i} + ${i}?"\n    verify: { math: { answer: "${2 * i}" } }\n    cases:\n      - { response: "${2 * i}", expect: pass }\n      - { response: "${2 * i + 1}", expect: fail }\n`;
  fs.writeFileSync(file, `vtask: 1\ntasks:\n${Array.from({ length: 200_000 }, (_, i) => task(i)).join('')}`);
  return file;
}

for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  test(`${sig} ends \`vtask check\` busy on a large file within two seconds`, async () => {
    const file = bigFile();
    const run = startCli(['check', file], {}, 120_000);
    let exited = false;
    void run.done.then(() => (exited = true));
    // Well into the work: started, reading and parsing.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(exited, false, 'the check had already finished: the file is too small to test this');
    const sent = performance.now();
    run.child.kill(sig);
    const r = await run.done;
    const ms = performance.now() - sent;
    assert.equal(r.signal, sig, `ended by the signal, not by finishing (code ${r.code})`);
    assert.ok(ms < 2000, `ended ${Math.round(ms)} ms after ${sig}`);
  });
}

test('SIGTERM ends `vtask run` while it is still reading a large file, within two seconds', async () => {
  const file = bigFile();
  const run = startCli(
    ['run', file, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--cache-dir', path.join(dir, 'cache')],
    {},
    120_000,
  );
  let exited = false;
  void run.done.then(() => (exited = true));
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(exited, false, 'the run had already ended: the file is too small to test this');
  const sent = performance.now();
  run.child.kill('SIGTERM');
  const r = await run.done;
  const ms = performance.now() - sent;
  // Nothing was sampled yet, so there is nothing to finish: the signal ends it.
  assert.equal(r.signal, 'SIGTERM', `ended by the signal (code ${r.code}): ${r.stderr.slice(-500)}`);
  assert.ok(ms < 2000, `ended ${Math.round(ms)} ms after SIGTERM`);
});

test('a path option naming a device, /proc or a FIFO is refused at once, with the reason', async () => {
  const file = path.join(dir, 'one.vtask');
  fs.writeFileSync(file, TASK);
  const fifo = path.join(dir, 'bench.fifo');
  spawnSync('mkfifo', [fifo]);
  for (const [args, message] of [
    [
      ['stats', file, '--contamination', '/dev/zero'],
      /--contamination \/dev\/zero: it is in \/dev, a file system of the kernel/,
    ],
    [['stats', file, '--contamination', fifo], /it is a FIFO, not a regular file or folder: reading it may never end/],
    [
      ['run', file, '--cache-dir', '/proc/x', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'],
      /--cache-dir \/proc\/x: it is in \/proc/,
    ],
    [['test', file, '--junit', '/dev/full'], /--junit \/dev\/full: it is in \/dev/],
    [['check', '/proc/self'], /\/proc\/self: it is in \/proc/],
  ] as const) {
    const r = await runCliProcess(args, {}, 20_000);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.ok(r.ms < 10_000, `${args.join(' ')} took ${Math.round(r.ms)} ms`);
  }
});

test('a reader that closes the output early (`| head`) ends the command quietly, with status 141 as SIGPIPE would', async () => {
  const file = path.join(dir, 'many.vtask');
  const task = (i: number): string =>
    `  - id: t${i}\n    prompt: "What is ${i} + ${i}?"\n    verify: { math: { answer: "${2 * i}" } }\n`;
  fs.writeFileSync(file, `vtask: 1\ntasks:\n${Array.from({ length: 2000 }, (_, i) => task(i)).join('')}`);
  // `stats` ends at once; `run` (the built-in model, no network) stops as on Ctrl-C, keeping its samples.
  const cache = path.join(dir, 'pipe-cache');
  const offline = { OPENAI_BASE_URL: '', OPENAI_API_KEY: '', VTASK_NO_LOCAL_DISCOVERY: '1' };
  for (const args of [
    ['stats', file, '--json'],
    ['run', path.resolve('examples/arithmetic.vtask'), '--cache-dir', cache, '--json'],
  ]) {
    const run = startCli(args, offline, 60_000);
    // The pipe's reading end closed before the command writes: its first write fails with EPIPE.
    run.child.stdout?.destroy();
    const r = await run.done;
    assert.equal(r.code, 141, `${args[0]}: ${r.stderr.slice(-300)}`);
    assert.doesNotMatch(r.stderr, /Unhandled|EPIPE|at /, args[0]);
  }
});
