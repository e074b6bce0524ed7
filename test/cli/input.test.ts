// Bad input to the CLI as a user meets it, through the built binary: every problem is one clear
// line with its path (never a stack trace or a hang), flags are bounded, typos get "did you
// mean", a failed task has the band `error`, and escapes never reach the terminal.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCliProcess } from '../support/cliProcess';
import { OpenAIServer } from '../support/openaiServer';
import { runArgs } from '../support/runArgs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-input-'));
const TASK =
  'vtask: 1\ntasks:\n  - id: clips\n    prompt: How many clips?\n    samples: 2\n    verify: { math: { answer: "72" } }\n';
const ESC = '\x1b]0;pwned\x07\x1b[2J';
const server = new OpenAIServer({ answer: () => `\\boxed{72} ${ESC}` });

before(async () => {
  await server.listen();
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string | Buffer): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

/** The CLI as a process, bounded in time; async, since the test server answers from this process. */
/** The CLI as a process (asynchronously: the model server answers from this process). */
function vtask(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCliProcess(args, { OPENAI_BASE_URL: '', OPENAI_API_KEY: '' });
}

const noStack = (s: string): void => assert.doesNotMatch(s, /\n\s+at .+:\d+:\d+\)?\n/, 'a stack trace was printed');

void test('a FIFO named *.vtask is skipped with a warning instead of hanging check', async () => {
  const sub = path.join(dir, 'fifo');
  fs.mkdirSync(sub);
  const pipe = path.join(sub, 'p.vtask');
  spawnSync('mkfifo', [pipe]);
  write('fifo/ok.vtask', TASK);
  for (const target of [sub, pipe]) {
    const r = await vtask(['check', target]);
    assert.match(
      r.stdout,
      new RegExp(
        `^${pipe.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1:1: warning: skipped: it is a named pipe \\(FIFO\\), not a file$`,
        'm',
      ),
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
  }
});

void test('unreadable paths and files are one error line each, and the rest is still checked', async () => {
  const sub = path.join(dir, 'broken');
  fs.mkdirSync(sub);
  write('broken/ok.vtask', TASK);
  fs.symlinkSync(path.join(sub, 'gone'), path.join(sub, 'dangling.vtask'));
  const r = await vtask(['check', sub]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, `${path.join(sub, 'dangling.vtask')}:1:1: error: cannot read it: it does not exist\n`);
  assert.match(r.stderr, /checked 1 file, 1 task: 1 error/);
  const under = await vtask(['check', path.join(sub, 'ok.vtask', 'x.vtask')]);
  assert.match(under.stdout, /x\.vtask:1:1: error: cannot read it: a part of the path is a file, not a folder/);
  noStack(under.stdout + under.stderr);
});

void test('invalid UTF-8 is an error at its line and column; the rest of the file is still checked', async () => {
  const file = write(
    'latin1.vtask',
    Buffer.concat([
      Buffer.from('vtask: 1\ntasks:\n  - id: x\n    prompt: "caf'),
      Buffer.from([0xe9]),
      Buffer.from('"\n    verify: { math: { answr: "1" } }\n'),
    ]),
  );
  const r = await vtask(['check', file]);
  assert.equal(r.code, 1);
  const out = r.stdout.split('\n');
  assert.equal(out[0], `${file}:4:17: error: invalid UTF-8 (byte 0xe9): save the file as UTF-8`);
  assert.match(out[1]!, /:5:23: error: unknown key `answr`/);
});

void test('a file that is not a task file is one error, not one per line of it', async () => {
  const r = await vtask(['check', 'README.md']);
  assert.equal(r.code, 1);
  assert.equal(
    r.stdout,
    'README.md:1:1: error: not a task file: a task file starts with `vtask: 1` and lists its `tasks:`\n',
  );
});

void test('numeric flags are bounded like the fields of a task file: usage error naming the bound', async () => {
  const file = write('a.vtask', TASK);
  for (const [flag, value, bound] of [
    ['--samples', '100000000', '1 to 10000'],
    ['--samples', '0', '1 to 10000'],
    ['--concurrency', '5000', '1 to 1024'],
    ['--group-size', '1', '2 to 10000'],
    ['--samples', '1e3', '1 to 10000'],
  ] as const) {
    const started = Date.now();
    const r = await vtask(['run', file, flag, value]);
    assert.equal(r.code, 2, `${flag} ${value}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^vtask run: ${flag} takes an integer from ${bound}, not '${value}'`));
    assert.ok(Date.now() - started < 10_000);
  }
});

void test('unknown options, commands and task ids are usage errors with "did you mean"', async () => {
  const file = write('a.vtask', TASK);
  const sample = await vtask(['run', file, '--sample', '3']);
  assert.equal(sample.code, 2);
  assert.match(sample.stderr, /^vtask run: unknown option '--sample' \(did you mean '--samples'\?\)/);
  const junit = await vtask(['test', file, '--junt', 'x.xml']);
  assert.match(junit.stderr, /unknown option '--junt' \(did you mean '--junit'\?\)/);
  const cmd = await vtask(['chek', file]);
  assert.equal(cmd.code, 2);
  assert.match(cmd.stderr, /unknown command 'chek' \(did you mean 'check'\?\)/);
  const task = await vtask(['run', file, '--task', 'clip', '--base-url', server.url, '--model', 'm']);
  assert.equal(task.code, 2);
  assert.match(task.stderr, /^vtask run: no task has the id 'clip' \(did you mean 'clips'\?\)/);
  assert.equal(task.stdout, '', 'nothing ran');
  const none = await vtask(['run', file, '--task', 'x'.repeat(500)]);
  assert.match(none.stderr, /no task has the id 'x{79}…'\n/);
});

void test('messages do not repeat the command name', async () => {
  for (const cmd of ['check', 'test', 'run']) {
    const r = await vtask([cmd]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.split('\n')[0], `vtask ${cmd}: give at least one file or folder`);
  }
});

void test('--junit into a missing folder is a usage error before anything runs', async () => {
  const file = write('a.vtask', TASK);
  const r = await vtask(['test', file, '--junit', path.join(dir, 'nope', 'report.xml')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^vtask test: --junit .*report\.xml: the folder .*nope does not exist/);
  assert.doesNotMatch(r.stdout, /passed/);
});

void test('a cache folder that cannot be read or written: the run still prints its results and says so', async () => {
  const file = write('a.vtask', TASK);
  // A file where the cache folder should be.
  const notDir = write('cache-file', 'not a folder');
  const r = await vtask(['run', file, '--base-url', server.url, '--model', 'test-model', '--cache-dir', notDir]);
  noStack(r.stderr);
  assert.match(r.stdout, /^clips\s+2\/2/m);
  assert.match(r.stderr, /cannot read the sample cache .*cache-file: .*sampling without it/);
  assert.match(r.stderr, /the sample cache was not written/);
  // A cache folder that cannot be created (under a file): sampled, printed, not written.
  const under = await vtask([...runArgs(file, server.url, path.join(notDir, 'sub')), '--json']);
  noStack(under.stderr);
  assert.equal((JSON.parse(under.stdout) as { tasks: { pass_rate: number }[] }).tasks[0]!.pass_rate, 1);
  assert.match(under.stderr, /the sample cache was not written/);
});

void test('a task whose sampling failed has band error, never too_hard; --json has band error and the error', async () => {
  const file = write('a.vtask', TASK);
  const args = [
    'run',
    file,
    '--base-url',
    'http://127.0.0.1:9/v1',
    '--model',
    'm',
    '--cache-dir',
    path.join(dir, 'c-dead'),
  ];
  const human = await vtask(args);
  assert.equal(human.code, 1);
  assert.match(human.stdout, /^clips\s+0\/0\s+\S+\s+\S+ \(k=\S+\)\s+error\s/m);
  assert.doesNotMatch(human.stdout + human.stderr, /too_hard/);
  const json = await vtask([...args, '--json']);
  const t = (JSON.parse(json.stdout) as { tasks: Record<string, unknown>[] }).tasks[0]!;
  assert.equal(t.band, 'error');
  assert.match(String(t.error), /nothing listens/);
});

void test('escapes from model output and from the file are shown escaped on the terminal, verbatim in --json', async () => {
  const id = `t${ESC}`;
  const file = write(
    'esc.vtask',
    `vtask: 1\ntasks:\n  - id: ${JSON.stringify(id)}\n    prompt: p\n    samples: 1\n    verify: { math: { answer: "1" } }\n    cases: [{ response: ${JSON.stringify(`\\boxed{2} ${ESC}`)}, expect: pass }]\n  - id: ${JSON.stringify(id)}\n    prompt: p\n    verify: { math: { answer: "1" } }\n`,
  );
  const check = await vtask(['check', file]);
  assert.match(check.stdout, /duplicate task id `t\\x1b\]0;pwned\\x07\\x1b\[2J`/);
  assert.doesNotMatch(check.stdout, /\x1b/);
  const tested = await vtask(['test', file]);
  assert.doesNotMatch(tested.stdout, /[\x07\x1b]/);
  const run = await vtask([
    ...runArgs(
      write('esc2.vtask', TASK.replace('id: clips', `id: ${JSON.stringify(id)}`)),
      server.url,
      path.join(dir, 'c-esc'),
    ),
  ]);
  assert.match(run.stdout, /t\\x1b\]0;pwned\\x07\\x1b\[2J\s+2\/2/);
  assert.doesNotMatch(run.stdout + run.stderr, /[\x07\x1b]/);
  const json = await vtask([...runArgs(path.join(dir, 'esc2.vtask'), server.url, path.join(dir, 'c-esc')), '--json']);
  const t = (JSON.parse(json.stdout) as { tasks: { task: string; samples: { text: string }[] }[] }).tasks[0]!;
  assert.equal(t.task, id);
  assert.ok(t.samples[0]!.text.includes(ESC));
});
