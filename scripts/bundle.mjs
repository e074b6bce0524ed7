// Benchmarks measure the core as it ships: bundled by esbuild. This bundles one module of
// src/ into a temporary CommonJS file and loads it, so each benchmark needs one line for it.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';

export const ROOT = path.resolve(import.meta.dirname, '..');

/** esbuild's options for the benches' and tests' bundles: one CommonJS file for Node 20, written to `outfile`. */
const nodeBundle = (outfile) => ({
  nodePaths: [path.join(ROOT, 'node_modules')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile,
  logLevel: 'warning',
  define: { VTASK_VERSION: '"bench"' },
  loader: { '.py': 'text' },
});

/**
 * Bundles `entry` (a path under the repo, or under `root`: another checkout of its sources,
 * such as an older commit's, whose packages are this one's) and returns its exports.
 */
export async function loadBundled(entry, root = ROOT) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-'));
  const outfile = path.join(dir, `${path.basename(entry).replace(/\.ts$/, '')}.cjs`);
  await esbuild.build({
    entryPoints: [path.join(root, entry)],
    ...nodeBundle(outfile),
  });
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return createRequire(import.meta.url)(outfile);
}

/** The sources (src and test) of commit `rev` of this repository, extracted under `dir`; their path. */
export function sourcesOf(rev, dir) {
  const src = path.join(dir, `sources-${rev}`);
  fs.mkdirSync(src, { recursive: true });
  execFileSync('sh', ['-c', `git -C "${ROOT}" archive ${rev} src test | tar -x -C "${src}"`]);
  return src;
}

/** The workbench's worker of the sources in `src` (this checkout's, or `sourcesOf`'s), bundled to `outfile`. */
export async function bundleWorkbenchWorker(src, outfile) {
  await esbuild.build({
    entryPoints: [path.join(src, 'src/core/workbench/workbenchWorker.ts')],
    ...nodeBundle(outfile),
  });
  return outfile;
}
