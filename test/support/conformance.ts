// The peers' conformance data, read from ../shared/conformance beside the repository, and the one
// assertion every conformance test makes: every row ran, and the rows where vtask disagrees with
// the peer are exactly the pinned ones. The figure printed is then exactly the figure asserted
// (agreement = total − pinned); a pinned row that starts to agree fails too, so the pin list (and
// the figure reported from it) is updated rather than left stale.
//
// ../shared is not part of the repository: CI lays it beside the clone. Found from this file's own
// place (not the working directory), and where it is absent outside CI the tests that read it skip
// with `needs:` (needsShared); under CI=true they run, and fail on the missing data.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The repository's root: the nearest folder above `from` whose package.json is vtask's. Tests are
 * bundled into out/test/**, so `__dirname` is that compiled test's folder, wherever it runs from.
 */
export function repoRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg) && (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { name?: string }).name === 'vtask')
      return dir;
    if (path.dirname(dir) === dir) throw new Error(`no vtask package.json above ${from}`);
  }
}

export const REPO_ROOT = repoRoot(__dirname);
/** The peers' data and reference material, beside the repository. */
export const SHARED_DIR = path.resolve(REPO_ROOT, '../shared');
export const CONFORMANCE_DIR = path.join(SHARED_DIR, 'conformance');

/**
 * A test's `skip` option for data under ../shared: false when `rel` is there, or under CI=true
 * (where it is always laid, so its absence must fail); else a `needs:` reason saying where the
 * data comes from, which scripts/test-all.mjs lists and excuses.
 */
export function needsShared(rel: string, what: string): string | false {
  if (process.env.CI === 'true' || fs.existsSync(path.join(SHARED_DIR, rel))) return false;
  return `needs: ../shared/${rel} beside the repository (${what})`;
}

/** The skip option of every test that reads CONFORMANCE_DIR. */
export const needsConformance = needsShared('conformance', "the peers' test suites");

/**
 * One JSON value per non-blank line of a conformance file. A conformance test passes `rows`, the
 * count the file must hold: an emptied or truncated file fails here instead of agreeing by
 * construction.
 */
export function readJsonl<T>(name: string, rows?: number): T[] {
  const values = fs
    .readFileSync(path.join(CONFORMANCE_DIR, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
  if (rows !== undefined) assert.equal(values.length, rows, `${name} has ${values.length} rows, expected ${rows}`);
  return values;
}

export function readJson<T>(name: string): T {
  return JSON.parse(fs.readFileSync(path.join(CONFORMANCE_DIR, name), 'utf8')) as T;
}

/**
 * A value read when first asked for: data read at module load would fail the whole file, the
 * tests that do not need it included, where a skipped test never asks.
 */
export function lazy<T>(read: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: read() }).v;
}

/** A row's id: the file and its 1-based line (among non-blank lines), and a part within the row. */
export const rowId = (name: string, index: number, part?: number): string =>
  `${name}:${index + 1}${part === undefined ? '' : `/${part + 1}`}`;

/** One compared row: its id (rowId), whether vtask agrees with the peer, and what to print if not. */
export interface Outcome {
  readonly id: string;
  readonly agree: boolean;
  readonly note?: string;
}

/**
 * Prints `label: A/T agree (P%)` and asserts it: `total` outcomes with unique ids, disagreeing on
 * exactly the ids of `pinned` (each with the reason the disagreement is known and accepted).
 */
export function assertAgreement(
  label: string,
  outcomes: readonly Outcome[],
  expected: { total: number; pinned?: Readonly<Record<string, string>> },
): void {
  const pinned = expected.pinned ?? {};
  const agree = outcomes.filter((o) => o.agree).length;
  console.log(
    `${label}: ${agree}/${outcomes.length} agree (${((100 * agree) / Math.max(1, outcomes.length)).toFixed(1)}%)`,
  );
  for (const o of outcomes)
    if (!o.agree)
      console.log(
        `  ${o.id in pinned ? 'pinned' : 'DISAGREE'} ${o.id}: ${o.note ?? ''}${o.id in pinned ? ` (${pinned[o.id]})` : ''}`,
      );
  assert.equal(
    outcomes.length,
    expected.total,
    `${label}: ${outcomes.length} rows compared, expected ${expected.total}`,
  );
  assert.equal(new Set(outcomes.map((o) => o.id)).size, outcomes.length, `${label}: row ids are not unique`);
  const ids = new Set(outcomes.map((o) => o.id));
  const unknownPins = Object.keys(pinned).filter((id) => !ids.has(id));
  assert.deepEqual(unknownPins, [], `${label}: pinned rows that were not compared`);
  const newDisagreements = outcomes.filter((o) => !o.agree && !(o.id in pinned)).map((o) => `${o.id}: ${o.note ?? ''}`);
  assert.deepEqual(newDisagreements, [], `${label}: new disagreements`);
  const nowAgreeing = outcomes.filter((o) => o.agree && o.id in pinned).map((o) => o.id);
  assert.deepEqual(
    nowAgreeing,
    [],
    `${label}: pinned rows now agree: remove them from the pin list and update the reported figure`,
  );
}
