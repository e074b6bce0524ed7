// docs/architecture.md lists the import floors that test/core/architecture.test.ts enforces:
// the same table (test/support/floors.ts), so the document cannot go stale beside the test.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../support/conformance';
import { FLOORS } from '../support/floors';

/** The floors as docs/architecture.md writes them: lines `N  name, name  comment` in a code block. */
function documentedFloors(text: string): string[][] {
  const at = text.indexOf('Imports go one way');
  assert.notEqual(at, -1, 'docs/architecture.md has no "Imports go one way" table');
  const block = /```\n([\s\S]*?)```/.exec(text.slice(at))?.[1] ?? '';
  const floors: string[][] = [];
  for (const line of block.split('\n')) {
    const m = /^(\d+)\s{2,}(\S.*?)(?:\s{2,}.*)?$/.exec(line);
    if (m) floors[Number(m[1])] = m[2]!.split(/,\s*/);
  }
  return floors;
}

test('docs/architecture.md lists the floors the architecture test enforces', () => {
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs/architecture.md'), 'utf8');
  assert.deepEqual(
    documentedFloors(doc),
    FLOORS.map((f) => [...f]),
  );
});
