// What a task file read a block at a time keeps per task while it streams (taskfile/fileStream.ts,
// stream.ts): its task starts (4 bytes) and the id index (about 11.5 bytes), nothing per line and
// none of an id's text. A child process streams files of 5,000 and 50,000 tasks of ten lines and
// a 40-character id each, and reports the most memory outside the heap (arrayBuffers) it held,
// measured after a collection every thousand tasks; the growth between the two sizes, per
// task added, must stay under a bound that line starts (40 bytes a task here) or ids' code units
// (80 bytes) kept again would break. Memory is measured, never time.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { readChunkedFile } from '../../src/core/taskfile/fileStream';
import { streamChunks } from '../../src/core/taskfile/stream';

const CHILD = 'VTASK_STREAM_RETENTION_FILE';

/** `n` tasks of ten short lines each, ids of 40 characters, every hundredth id a repeat. */
function tasks(n: number): string {
  const out = ['vtask: 1', 'defaults:', '  verify: {math: {answer: "4"}}', 'tasks:'];
  for (let i = 0; i < n; i++) {
    const id = `task-${String(i % 100 === 99 ? i - 1 : i).padStart(35, '0')}`;
    out.push(`  - id: ${id}`, `    prompt: |`, `      Task ${i}:`, `      what is`, `      2+2?`);
    out.push(`    tags:`, `      - a`, `      - b`, `      - c`, `    difficulty: easy`);
  }
  return out.join('\n') + '\n';
}

/** In the child: streams the file and prints the most arrayBuffers held, and the repeats found. */
async function measure(file: string): Promise<void> {
  const gc = globalThis.gc;
  if (!gc) throw new Error('run with --expose-gc');
  const chunked = readChunkedFile(file);
  if (!chunked) throw new Error(`${file} is not read a block at a time`);
  const stream = streamChunks(chunked);
  let most = 0;
  let seen = 0;
  let repeats = 0;
  for await (const t of stream.tasks) {
    if (t.issues.some((i) => i.code === 'duplicate-id')) repeats++;
    if (++seen % 1000 === 0) {
      gc();
      most = Math.max(most, process.memoryUsage().arrayBuffers);
    }
  }
  // Positions are still exact once the stream has passed them.
  const last = stream.lines.position(chunked.length - 1).line;
  process.stdout.write(JSON.stringify({ most, repeats, last }) + '\n');
}

const file = process.env[CHILD];
if (file) {
  measure(file).catch((e: unknown) => {
    process.stderr.write(`${String(e)}\n`);
    process.exitCode = 1;
  });
} else {
  test('streaming a task file keeps no line starts and no id text: arrayBuffers grow under 64 bytes a task from 5,000 to 50,000 tasks', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-stream-retention-'));
    try {
      const held = [5_000, 50_000].map((n) => {
        const f = path.join(dir, `tasks-${n}.vtask`);
        fs.writeFileSync(f, tasks(n));
        const r = spawnSync(process.execPath, ['--expose-gc', process.argv[1] ?? ''], {
          env: { ...process.env, [CHILD]: f },
          encoding: 'utf8',
          timeout: 300_000,
        });
        assert.equal(r.status, 0, r.stderr.slice(-800));
        const got: unknown = JSON.parse(r.stdout);
        assert.ok(typeof got === 'object' && got !== null);
        const { most, repeats, last } = { most: -1, repeats: -1, last: -1, ...got };
        assert.equal(repeats, n / 100);
        assert.equal(last, n * 10 + 3);
        return most;
      });
      const perTask = ((held[1] ?? 0) - (held[0] ?? 0)) / 45_000;
      assert.ok(perTask < 64, `${perTask.toFixed(1)} bytes a task (arrayBuffers ${held.join(' → ')})`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
