// Bundles every target with esbuild: the extension, the CLI, the webview and the compiled tests.
// One config per target; tests are bundled with their packages left external so they load real modules.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { HASH_FILE, inputsHash } from './inputs-hash.mjs';

const root = path.resolve(import.meta.dirname, '..');
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

function testEntries() {
  const found = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) { if (e.name !== 'fixtures' && e.name !== 'harness') walk(p); }
      else if (/\.test\.ts$/.test(e.name) || (/^index\.ts$/.test(e.name) && dir.endsWith('integration'))) found.push(p);
    }
  };
  walk(path.join(root, 'test'));
  return found;
}

const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const common = { define: { VTASK_VERSION: JSON.stringify(pkg.version) }, loader: { '.py': 'text' }, bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', absWorkingDir: root };
const targets = [
  { ...common, entryPoints: ['src/vscode/extension.ts'], outfile: 'out/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] },
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'out/cli.js', platform: 'node', format: 'cjs', target: 'node20', banner: { js: '#!/usr/bin/env node' } },
  // The panel's script is minified always: it is parsed each time the panel opens.
  { ...common, minify: true, entryPoints: ['src/webview/main.ts'], outfile: 'out/webview.js', platform: 'browser', format: 'iife', target: 'es2022' },
  { ...common, minify: true, entryPoints: ['src/webview/datasetMain.ts'], outfile: 'out/datasetView.js', platform: 'browser', format: 'iife', target: 'es2022' },
  { ...common, minify: true, entryPoints: ['src/webview/dashboardMain.ts'], outfile: 'out/dashboard.js', platform: 'browser', format: 'iife', target: 'es2022' },
  // The math worker is its own bundle: mathjs (for simplify) loads only in the worker thread.
  { ...common, entryPoints: ['src/core/verifiers/math/worker.ts'], outfile: 'out/mathWorker.js', platform: 'node', format: 'cjs', target: 'node20' },
  // The overview's long reads (a run log, the duplicate search) run in a thread of the extension's own: each holds a thread for a second at 100,000 tasks.
  { ...common, entryPoints: ['src/core/overview/overviewWorker.ts'], outfile: 'out/overviewWorker.js', platform: 'node', format: 'cjs', target: 'node20' },
  // The OpenAI-compatible test server, runnable on its own: node out/test/support/openaiServer.js --port 0
  { ...common, entryPoints: ['test/support/openaiServer.ts'], outfile: 'out/test/support/openaiServer.js', platform: 'node', format: 'cjs', target: 'node20' },
  { ...common, entryPoints: ['src/core/index.ts'], outfile: 'out/core.js', platform: 'node', format: 'cjs', target: 'node20' },
  { ...common, entryPoints: testEntries(), outdir: 'out/test', outbase: 'test', platform: 'node', format: 'cjs', target: 'node20', packages: 'external', external: ['vscode'] },
];

/** The panel's icons: VS Code's own icon font, shipped beside the panel's script. */
function copyCodicons() {
  const from = path.join(root, 'node_modules/@vscode/codicons/dist');
  const to = path.join(root, 'out/codicons');
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
  fs.rmSync(HASH_FILE, { force: true });
  // Compiled tests whose source is gone must not keep running.
  fs.rmSync(path.join(root, 'out/test'), { recursive: true, force: true });
  await Promise.all(targets.map((t) => esbuild.build(t)));
  fs.chmodSync(path.join(root, 'out/cli.js'), 0o755);
  copyCodicons();
  fs.writeFileSync(HASH_FILE, hash + '\n');
  console.log(`built in ${Date.now() - t0} ms`);
}
