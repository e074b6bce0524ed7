// `vtask audit` as CI runs it: the JSON the format specification gives, exit codes that gate on
// --fail-on, and --probes narrowing the run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCliProcess } from '../support/cliProcess';

interface AuditJson {
  tasks: { file: string; task: string; findings: { probe: string; severity: string; response: string; verdict: string; expected: string; reason: string }[] }[];
  findings: number;
}

void test('audit --json: tasks with their findings, the count, and exit 1 on a high finding', async () => {
  const r = await runCliProcess(['audit', 'test/fixtures/audit/weak.vtask', '--json', '--probes', 'degenerate,hedge'], {}, 60_000);
  assert.equal(r.code, 1, r.stderr);
  const json = JSON.parse(r.stdout) as AuditJson;
  assert.equal(json.findings, json.tasks.reduce((n, t) => n + t.findings.length, 0));
  const hedge = json.tasks.find((t) => t.task === 'last-tag-hedge');
  assert.equal(hedge?.file, 'test/fixtures/audit/weak.vtask');
  assert.deepEqual(hedge?.findings.map((f) => [f.probe, f.severity, f.verdict, f.expected]), [['hedge-gold-last', 'high', 'pass', 'fail']]);
  assert.match(hedge?.findings[0]?.response ?? '', /<answer>Paris<\/answer>\.$/);
  assert.match(hedge?.findings[0]?.reason ?? '', /normalized match of "Paris"/);
  // Only the families asked for ran: no code probes, so no sandbox was needed.
  assert.ok(json.tasks.every((t) => t.findings.every((f) => !/mutant|exit|print/.test(f.probe))));
});

void test('audit: findings below --fail-on leave the exit code 0; the summary counts by severity', async () => {
  const r = await runCliProcess(['audit', 'test/fixtures/audit/sound.vtask', '--probes', 'degenerate,hedge,wrong-answer,right-answer'], {}, 60_000);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^test\/fixtures\/audit\/sound\.vtask:4: low: task math-72: probe right-words \(expected pass, got fail\)/m);
  assert.match(r.stdout, /^\d+ findings \(\d+ low\) in 1 of 3 tasks; 0 at or above high$/m);
  const strict = await runCliProcess(['audit', 'test/fixtures/audit/sound.vtask', '--probes', 'right-answer', '--fail-on', 'low'], {}, 60_000);
  assert.equal(strict.code, 1);
});

void test('audit: a bad --fail-on is a usage error', async () => {
  const r = await runCliProcess(['audit', 'examples', '--fail-on', 'severe'], {}, 30_000);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--fail-on takes low, medium, high, critical; got 'severe'/);
});
