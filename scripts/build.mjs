// Bundles every target with esbuild: the extension, the CLI, the webview and the compiled tests.
// One config per target; tests are bundled with their packages left external so they load real modules.
// `--production` (what ships: `npm run package`, `npm pack`) minifies and writes no sourcemaps;
// `--only=vsix` or `--only=npm` builds just what that package holds, `--out=DIR` writes it there.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { HASH_FILE, inputsHash } from './inputs-hash.mjs';

const root = path.resolve(import.meta.dirname, '..');
const watch = process.argv.includes('--watch');
const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
// `npm pack` and `npm publish` run `prepare`: the CLI they pack is built for production, and
// `postpack` builds it again for development.
const packing =
  process.env.npm_lifecycle_event === 'prepare' && ['pack', 'publish'].includes(process.env.npm_command ?? '');
const production = process.argv.includes('--production') || packing;
const only = arg('only') ?? (packing ? 'npm' : undefined);
const outDir = path.resolve(root, arg('out') ?? 'out');

function testEntries() {
  const found = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'fixtures' && e.name !== 'harness') walk(p);
      } else if (/\.test\.ts$/.test(e.name) || (/^index\.ts$/.test(e.name) && dir.endsWith('integration')))
        found.push(p);
    }
  };
  walk(path.join(root, 'test'));
  return found;
}

const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const common = {
  define: { VTASK_VERSION: JSON.stringify(pkg.version) },
  loader: { '.py': 'text' },
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  absWorkingDir: root,
};
const all = [
  {
    ...common,
    entryPoints: ['src/vscode/extension.ts'],
    outfile: 'out/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  },
  // The extension's second stage: the first (out/extension.js) loads it once a vtask file, view or command needs it.
  {
    ...common,
    entryPoints: ['src/vscode/extensionMain.ts'],
    outfile: 'out/extensionMain.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  },
  {
    ...common,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'out/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
  // The panel's script is minified always: it is parsed each time the panel opens.
  {
    ...common,
    minify: true,
    entryPoints: ['src/webview/main.ts'],
    outfile: 'out/webview.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
  {
    ...common,
    minify: true,
    entryPoints: ['src/webview/datasetMain.ts'],
    outfile: 'out/datasetView.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
  {
    ...common,
    minify: true,
    entryPoints: ['src/webview/dashboardMain.ts'],
    outfile: 'out/dashboard.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
  {
    ...common,
    minify: true,
    entryPoints: ['src/webview/diffMain.ts'],
    outfile: 'out/diffView.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
  {
    ...common,
    minify: true,
    entryPoints: ['src/webview/workbenchMain.ts'],
    outfile: 'out/workbench.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
  // The math worker is its own bundle: mathjs (for simplify) loads only in the worker thread.
  {
    ...common,
    entryPoints: ['src/core/verifiers/math/worker.ts'],
    outfile: 'out/mathWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  // The overview's long reads (a run log, the duplicate search) run in a thread of the extension's own: each holds a thread for a second at 100,000 tasks.
  {
    ...common,
    entryPoints: ['src/core/overview/overviewWorker.ts'],
    outfile: 'out/overviewWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  // The workbench's index (a dataset of up to millions of rows, filtered and sorted) in a thread of its own.
  {
    ...common,
    entryPoints: ['src/core/workbench/workbenchWorker.ts'],
    outfile: 'out/workbenchWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  // The OpenAI-compatible test server, runnable on its own: node out/test/support/openaiServer.js --port 0
  {
    ...common,
    entryPoints: ['test/support/openaiServer.ts'],
    outfile: 'out/test/support/openaiServer.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...common,
    entryPoints: ['src/core/index.ts'],
    outfile: 'out/core.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...common,
    entryPoints: testEntries(),
    outdir: 'out/test',
    outbase: 'test',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    external: ['vscode'],
  },
];
/** What each package loads: the .vsix has no CLI (the extension never runs it), npm only the CLI. */
const SHIPPED = {
  vsix: [
    'out/extension.js',
    'out/extensionMain.js',
    'out/webview.js',
    'out/datasetView.js',
    'out/dashboard.js',
    'out/diffView.js',
    'out/workbench.js',
    'out/mathWorker.js',
    'out/overviewWorker.js',
    'out/workbenchWorker.js',
  ],
  npm: ['out/cli.js', 'out/mathWorker.js'],
};
if (only && !SHIPPED[only]) throw new Error(`--only=${only}: one of ${Object.keys(SHIPPED)}`);
const targets = (only ? all.filter((t) => SHIPPED[only].includes(t.outfile)) : all).map((t) =>
  t.outfile ? { ...t, outfile: path.join(outDir, path.relative('out', t.outfile)) } : t,
);

/** The panel's icons: VS Code's own icon font, shipped beside the panel's script. */
function copyCodicons() {
  const from = path.join(root, 'node_modules/@vscode/codicons/dist');
  const to = path.join(outDir, 'codicons');
  fs.mkdirSync(to, { recursive: true });
  for (const f of ['codicon.css', 'codicon.ttf']) fs.copyFileSync(path.join(from, f), path.join(to, f));
}

if (watch) {
  copyCodicons();
  for (const t of targets) await (await esbuild.context(t)).watch();
  console.log('watching…');
} else {
  const t0 = Date.now();
  // Hashed before building: an edit made during the build leaves out/ marked stale.
  const hash = inputsHash();
  const intoOut = outDir === path.join(root, 'out');
  // npm pack's production CLI is put back by postpack: the mark of a current build waits aside.
  const aside = `${HASH_FILE}.packing`;
  if (packing && fs.existsSync(HASH_FILE)) fs.renameSync(HASH_FILE, aside);
  const restored =
    intoOut && only === 'npm' && !production && fs.existsSync(aside) && fs.readFileSync(aside, 'utf8').trim() === hash;
  // Otherwise only a full development build marks out/ current; any other build into out/ leaves it marked stale.
  const complete = (!only && !production && intoOut) || restored;
  if (intoOut) fs.rmSync(HASH_FILE, { force: true });
  if (intoOut && !packing) fs.rmSync(aside, { force: true });
  // Compiled tests whose source is gone must not keep running.
  if (!only) fs.rmSync(path.join(outDir, 'test'), { recursive: true, force: true });
  // A production bundle has no map: an old one beside it would describe other code.
  for (const t of targets) if (t.outfile) fs.rmSync(`${t.outfile}.map`, { force: true });
  await Promise.all(targets.map((t) => esbuild.build(t)));
  if (fs.existsSync(path.join(outDir, 'cli.js'))) fs.chmodSync(path.join(outDir, 'cli.js'), 0o755);
  if (only !== 'npm') copyCodicons();
  if (complete) fs.writeFileSync(HASH_FILE, hash + '\n');
  // On stderr: `npm pack --json` prints its answer on stdout.
  console.error(`built${production ? ' for production' : ''}${only ? ` (${only})` : ''} in ${Date.now() - t0} ms`);
}
