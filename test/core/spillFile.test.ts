// Items appended to a scratch file (overview/prompts/spillFile.ts) read back the same, in order
// and out of it, and what each way of reading costs in bytes read: a block ahead in order, a few
// kilobytes per item looked up out of order (summary rows and duplicate pairs are looked up so).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { SpillFile } from '../../src/core/overview/prompts/spillFile';
import { ScratchDir } from '../../src/core/util/scratchDir';

/** Bytes read from files while `f` runs. */
function bytesRead<T>(f: () => T): { value: T; bytes: number } {
  const readSync = fs.readSync;
  let bytes = 0;
  fs.readSync = ((...args: Parameters<typeof readSync>) => {
    const got = readSync(...args);
    bytes += got;
    return got;
  }) as typeof readSync;
  try {
    return { value: f(), bytes };
  } finally {
    fs.readSync = readSync;
  }
}

test('items of any size read back the same in order and out of it; in order costs the file once, a look-up a few kilobytes', () => {
  const dir = new ScratchDir('spill-test');
  const items = new SpillFile(dir, 'items');
  const fixed = new SpillFile(dir, 'fixed', 8);
  try {
    const item = (i: number): string => `item ${i} ${'é'.repeat(i % 97)}${i % 5000 === 3 ? 'x'.repeat(70_000) : ''}`;
    const eight = (i: number): Buffer => {
      const b = Buffer.alloc(8);
      b.writeDoubleLE(i * 1.5);
      return b;
    };
    const n = 60_000;
    for (let i = 0; i < n; i++) {
      items.append(Buffer.from(item(i)));
      fixed.append(eight(i));
    }
    const inOrder = bytesRead(() => {
      for (let i = 0; i < n; i++) {
        assert.equal(items.read(i).toString(), item(i));
        assert.equal(fixed.read(i).readDoubleLE(0), i * 1.5);
      }
    });
    const size = fs.fstatSync(fs.openSync(`${dir.path}/items`, 'r')).size;
    // The items, their 8-byte ends and the fixed file, each once and at most a block more.
    assert.ok(inOrder.bytes < size + n * 16 + 3 * (1 << 20), `${inOrder.bytes} bytes read for ${size}`);
    const picks = Array.from({ length: 2_000 }, (_, k) => (k * 7919 * 31) % n);
    const lookedUp = bytesRead(() => {
      for (const i of picks) {
        assert.equal(items.read(i).toString(), item(i), `item ${i}`);
        assert.equal(fixed.read(i).readDoubleLE(0), i * 1.5);
      }
    });
    // Three files read per look-up (the item, its end, the fixed item); a megabyte each was 6 GB.
    assert.ok(lookedUp.bytes < picks.length * 3 * 16_384, `${lookedUp.bytes} bytes read for ${picks.length} look-ups`);
  } finally {
    items.close();
    fixed.close();
    dir.remove();
  }
});

test('a failed write names the scratch file (where the disk is full), as a call given a path does', () => {
  const dir = new ScratchDir('spill-test');
  const items = new SpillFile(dir, 'items', 4);
  const writeSync = fs.writeSync;
  fs.writeSync = (() => {
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
  }) as typeof writeSync;
  try {
    // A megabyte of items fills the write buffer; the next one writes it out.
    assert.throws(
      () => {
        for (let i = 0; i <= (1 << 20) / 4; i++) items.append(new Uint8Array(4));
      },
      (e: NodeJS.ErrnoException) => e.code === 'ENOSPC' && e.path === `${dir.path}/items`,
    );
  } finally {
    fs.writeSync = writeSync;
    items.close();
    dir.remove();
  }
});
