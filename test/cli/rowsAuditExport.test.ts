// `vtask audit` and `vtask export` on JSONL and Parquet datasets named on the command line: each
// row is the task it stands for (as `vtask run` reads it), so a weak verifier in a row is found
// and rows are exported in another format; a row file in no known format is an error.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { WEAK_TASKS, writeWeakRows } from '../support/weakRows';

const CLI = path.resolve('out/cli.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-cli-rows-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });
}

const lines = (file: string): Record<string, unknown>[] =>
  fs
    .readFileSync(path.join(root, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

before(async () => {
  fs.mkdirSync(path.join(root, '.git'));
  fs.writeFileSync(path.join(root, 'w.vtask'), WEAK_TASKS);
  await writeWeakRows(path.join(root, 'rows.parquet'), path.join(root, 'verl.jsonl'));
  fs.writeFileSync(path.join(root, 'other.jsonl'), `${JSON.stringify({ level: 'info', msg: 'a log line' })}\n`);
});

test("audit of JSONL and Parquet rows: a row's weak verifier is found, at its row", () => {
  const r = cli('audit', 'rows.parquet', 'verl.jsonl', '--json');
  assert.equal(r.status, 1, r.stderr);
  const json = JSON.parse(r.stdout) as { tasks: { file: string; task: string; findings: { probe: string }[] }[] };
  assert.deepEqual(
    json.tasks.map((t) => [t.file, t.task]),
    [
      ['rows.parquet', 'add'],
      ['rows.parquet', 'anything'],
      ['verl.jsonl', 'add'],
      ['verl.jsonl', 'anything'],
    ],
  );
  for (const t of json.tasks.filter((x) => x.task === 'anything'))
    assert.ok(
      t.findings.some((f) => f.probe === 'empty'),
      t.file,
    );
  // The same findings as the task file the rows were exported from.
  const direct = JSON.parse(cli('audit', 'w.vtask', '--json').stdout) as typeof json;
  const probes = (t: (typeof json.tasks)[number]) => t.findings.map((f) => f.probe);
  for (const t of json.tasks) assert.deepEqual(probes(t), probes(direct.tasks.find((d) => d.task === t.task)!));
  const text = cli('audit', 'verl.jsonl');
  assert.equal(text.status, 1, text.stderr);
  assert.match(text.stdout, /^verl\.jsonl:2: critical: task anything: probe empty \(expected fail, got pass\)/m);
});

test('export of JSONL and Parquet rows: each row the task it stands for, in another format', () => {
  const r = cli('export', 'rows.parquet', 'verl.jsonl', '-f', 'trl', '--keep-duplicates', '-o', 'out.jsonl');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'out.jsonl: 4 rows\n');
  const direct = cli('export', 'w.vtask', '-f', 'trl', '-o', 'direct.jsonl');
  assert.equal(direct.status, 0, direct.stderr);
  const task = ({ file: _file, ...rest }: Record<string, unknown>) => rest;
  const want = lines('direct.jsonl').map(task);
  assert.deepEqual(lines('out.jsonl').map(task), [...want, ...want]);
  assert.deepEqual(
    lines('out.jsonl').map((l) => l.file),
    ['rows.parquet', 'rows.parquet', 'verl.jsonl', 'verl.jsonl'],
  );
  // Without --keep-duplicates, the second file's rows repeat the first's prompts.
  const deduped = cli('export', 'rows.parquet', 'verl.jsonl', '-f', 'trl', '-o', 'dedup.jsonl');
  assert.equal(deduped.status, 0, deduped.stderr);
  assert.match(deduped.stderr, /^verl\.jsonl:1: task 'add' dropped: same prompt as 'add' \(rows\.parquet:1\)$/m);
});

test('a JSONL file in no known training format, named on the command line, is an error', () => {
  const exported = cli('export', 'other.jsonl', 'w.vtask', '-f', 'trl', '-o', 'never.jsonl');
  assert.equal(exported.status, 1);
  assert.match(exported.stderr, /^other\.jsonl:1:1: error: not a dataset vtask knows/m);
  assert.equal(fs.existsSync(path.join(root, 'never.jsonl')), false);
  const audited = cli('audit', 'other.jsonl');
  assert.equal(audited.status, 1);
  assert.match(audited.stdout, /^other\.jsonl:1:1: error: not a dataset vtask knows/m);
});
