// The spool behind `vtask test`'s reports: text past 32K characters goes to a temporary file and
// comes back whole and in order (characters split across reads included), the file removed after.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Spool } from '../../src/core/util/spool';

test('a spool gives back megabytes of text exactly, waiting on a stream that buffers, and leaves no file', async () => {
  const spool = new Spool();
  const parts: string[] = [];
  // Three bytes per character and odd lengths: reads of 32 KB end inside characters.
  for (let i = 0; i < 40_000; i++) parts.push(`line ${i}: ${'€'.repeat(i % 97)}é\n`);
  for (const p of parts) spool.add(p);
  const tmp = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('vtask-spool-'));
  assert.ok(tmp.length > 0, 'past 32K characters the text is in a temporary file');
  let got = '';
  let drains = 0;
  const listeners: (() => void)[] = [];
  const out = {
    write: (s: string) => {
      got += s;
      // Says "buffered" every other write, and drains on the next tick, as a slow pipe does.
      if (got.length % 2 === 0) {
        setImmediate(() => listeners.shift()?.());
        return false;
      }
      return true;
    },
    once: (_: 'drain', f: () => void) => {
      drains++;
      listeners.push(f);
    },
  };
  await spool.drainTo(out);
  assert.equal(got, parts.join(''));
  assert.ok(drains > 0);
  assert.equal(spool.empty, true);
  spool.add('again');
  let second = '';
  await spool.drainTo({ write: (s: string) => (second += s) });
  assert.equal(second, 'again');
  spool.close();
  for (const f of tmp) assert.equal(fs.existsSync(path.join(os.tmpdir(), f)), false);
});
