// Finding a test's programs among the host's processes by a token in their command line
// (sandboxed programs are visible from the host), to prove that nothing of them is left running.
import assert from 'node:assert/strict';
import fs from 'node:fs';

const LINUX = process.platform === 'linux';

/** Host pids, other than this process, whose command line contains the token. */
export function survivors(tok: string): number[] {
  if (!LINUX) return [];
  const found: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${e}/cmdline`, 'latin1').includes(tok)) found.push(Number(e));
    } catch {
      // Gone.
    }
  }
  return found;
}

/** Waits a moment for killed processes to be reaped, then asserts none is left. */
export async function noSurvivors(tok: string, what = 'the program'): Promise<void> {
  for (let i = 0; i < 40 && survivors(tok).length; i++) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(survivors(tok), [], `no process of ${what} survives`);
}
