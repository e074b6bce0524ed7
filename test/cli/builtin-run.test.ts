// `vtask run` with nothing configured and no server listening uses the built-in demo model.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

test('vtask run examples/arithmetic.vtask samples the built-in model with no network', async () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-builtin-'));
  const env = { ...process.env, OPENAI_BASE_URL: '', OPENAI_API_KEY: '' };
  const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['out/cli.js', 'run', 'examples/arithmetic.vtask', '--cache-dir', cache, '--json'], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
  fs.rmSync(cache, { recursive: true, force: true });
  assert.equal(out.code, 0, out.stderr);
  const json = JSON.parse(out.stdout) as { tasks: { task: string; model: string; pass_rate: number; band: string; samples: unknown[] }[] };
  assert.equal(json.tasks.length, 4);
  for (const t of json.tasks) {
    assert.equal(t.samples.length, 16);
    assert.match(t.model, /arith/);
  }
  // The weak model solves sums some of the time: at least one task is learnable.
  assert.ok(json.tasks.some((t) => t.band === 'learnable'), JSON.stringify(json.tasks.map((t) => [t.task, t.pass_rate])));
});
