import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { FLOORS } from '../support/floors';

// The compiled test runs from out/test/core; the sources it reads are the repository's.
const ROOT = path.resolve(__dirname, '../../..');
const SRC = path.join(ROOT, 'src');

/** What the panel's page may import besides itself: it runs in the browser, beside no Node. */
const WEBVIEW_MAY_IMPORT = ['webview', 'core/base'];
/** The one file of a front end another may import: the extension serves the panel's HTML page. */
const SHARED_BETWEEN_FRONT_ENDS = ['webview/page.ts'];

interface Edge {
  readonly from: string;
  readonly to: string;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** The file an import specifier names, as a path relative to src; undefined for a package. */
function resolveImport(fromFile: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(fromFile), spec);
  const found = [`${base}.ts`, path.join(base, 'index.ts'), base].find(
    (p) => fs.existsSync(p) && fs.statSync(p).isFile(),
  );
  assert.ok(found, `${path.relative(ROOT, fromFile)}: cannot resolve import '${spec}'`);
  return path.relative(SRC, found).split(path.sep).join('/');
}

/** Every import of every file under src, counting `import type`, re-exports and `import()`. */
function importGraph(): { edges: Edge[]; packages: Map<string, string[]> } {
  const edges: Edge[] = [];
  const packages = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const from = path.relative(SRC, file).split(path.sep).join('/');
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    for (const { fileName: spec } of info.importedFiles) {
      const to = resolveImport(file, spec);
      if (to) edges.push({ from, to });
      else packages.set(from, [...(packages.get(from) ?? []), spec]);
    }
  }
  return { edges, packages };
}

const within = (file: string, prefix: string) => file === prefix || file.startsWith(`${prefix}/`);

function floorOf(file: string): number {
  const floor = FLOORS.findIndex((names) => names.some((n) => within(file, n)));
  assert.notEqual(floor, -1, `src/${file} belongs to no floor: add its folder to FLOORS`);
  return floor;
}

/** One import circle among the given edges, as the list of files around it, or undefined. */
export function findCycle(edges: readonly Edge[]): string[] | undefined {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, 'open');
    stack.push(node);
    for (const to of next.get(node) ?? []) {
      if (state.get(to) === 'open') return [...stack.slice(stack.indexOf(to)), to];
      if (!state.has(to)) {
        const found = visit(to);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of [...next.keys()].sort()) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}

const graph = importGraph();
const show = (e: Edge) => `src/${e.from} → src/${e.to}`;

test('the import graph of src/core has no circle, counting type imports', () => {
  const cycle = findCycle(graph.edges.filter((e) => within(e.from, 'core') && within(e.to, 'core')));
  assert.equal(cycle, undefined, `import circle: ${cycle?.map((f) => `src/${f}`).join(' → ')}`);
});

test('no file imports from a floor above its own', () => {
  const upward = graph.edges.filter((e) => floorOf(e.to) > floorOf(e.from));
  assert.deepEqual(upward.map(show), [], 'upward imports');
});

test('front ends import the core, not each other; the page imports only the ground floor', () => {
  const frontEnds = FLOORS[FLOORS.length - 1] ?? [];
  const across = graph.edges.filter((e) =>
    frontEnds.some(
      (f) =>
        within(e.from, f) && !within(e.to, f) && !within(e.to, 'core') && !SHARED_BETWEEN_FRONT_ENDS.includes(e.to),
    ),
  );
  assert.deepEqual(across.map(show), [], 'imports between front ends');
  const page = graph.edges.filter((e) => within(e.from, 'webview') && !WEBVIEW_MAY_IMPORT.some((p) => within(e.to, p)));
  assert.deepEqual(page.map(show), [], 'the panel page reaches past the ground floor');
});

test('the core and the page import no editor; the page and the ground floor no Node', () => {
  const offending: string[] = [];
  for (const [file, specs] of graph.packages) {
    for (const spec of specs) {
      const editor = spec === 'vscode' && !within(file, 'vscode');
      const node =
        (spec.startsWith('node:') || builtinModules.includes(spec)) &&
        (within(file, 'webview') || within(file, 'core/base'));
      if (editor || node) offending.push(`src/${file} imports '${spec}'`);
    }
  }
  assert.deepEqual(offending, []);
});

test('the circle finder reports the files around a circle', () => {
  assert.deepEqual(
    findCycle([
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'a' },
    ]),
    ['a', 'b', 'c', 'a'],
  );
  assert.equal(
    findCycle([
      { from: 'a', to: 'b' },
      { from: 'a', to: 'c' },
      { from: 'b', to: 'c' },
    ]),
    undefined,
  );
});

/**
 * Type assertions (`x as T`, not `as const`) per 1,000 lines of src, as scripts/count-casts.mjs
 * counts them: each is a type the compiler was told, not shown. The ceiling is the count when it
 * was last lowered, so new code proves its types (zod, `at`, `must`) instead of asserting them.
 */
const CASTS_PER_THOUSAND_LINES = 3.8;
/**
 * Non-null assertions (`x!`), counted by the same script: the same promise made shorter, so a
 * cast rewritten as `!` must not pass for a type proven. Capped at their count, not per line.
 */
const NON_NULL_ASSERTIONS = 72;

test('casts and non-null assertions in src stay under their ceilings', (t) => {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/count-casts.mjs')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const figures = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as {
    casts: number;
    nonNull: number;
    lines: number;
    perThousand: number;
  };
  t.diagnostic(
    `${figures.casts} casts in ${figures.lines} lines: ${figures.perThousand} per 1,000 lines (ceiling ${CASTS_PER_THOUSAND_LINES}); ${figures.nonNull} non-null assertions (ceiling ${NON_NULL_ASSERTIONS})`,
  );
  assert.ok(
    figures.nonNull <= NON_NULL_ASSERTIONS,
    `${figures.nonNull} non-null assertions (x!) in src, over the ceiling of ${NON_NULL_ASSERTIONS}: check the value (at, must, a guard) instead of asserting it`,
  );
  assert.ok(
    figures.perThousand <= CASTS_PER_THOUSAND_LINES,
    `${figures.perThousand} casts per 1,000 lines of src, over the ceiling of ${CASTS_PER_THOUSAND_LINES}: prove the type (zod, at, must) instead of asserting it`,
  );
});
