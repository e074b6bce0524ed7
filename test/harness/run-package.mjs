// The two packages as their users get them, checked from the outside:
//  - the npm package (`npm pack`, its scripts run): only what the CLI needs, built for production
//    (minified, no sourcemap), and out/ left with the development build after; installed globally
//    into a temp prefix from the tarball, offline, its `vtask check`, `vtask test` and `vtask run`
//    (the built-in model, no network) work on examples/;
//  - the .vsix (`npm run package`'s command): the marketplace README, icon, CHANGELOG, license,
//    a real repository URL, no proposed APIs (what Open VSX and the Marketplace require),
//    production bundles, and nothing the extension does not load (no CLI, no out/core.js, no
//    sources, tests or maps).
// Prints each package's files with their sizes. The last line is `N passed, N failed`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, runMain, makeTempDir, packageVsix, requireBuilt } from './vscode.mjs';
import { writeVscodeStub } from '../../scripts/vscode-stub.mjs';

const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
const NPM_FILES = [
  'LICENSE',
  'README.md',
  'package.json',
  'out/cli.js',
  'out/mathWorker.js',
  'models/arith-strong.gguf',
  'models/arith-weak.gguf',
  'models/calculator.gguf',
];
const VSIX_MUST_HOLD = [
  'package.json',
  'readme.md',
  'changelog.md',
  'LICENSE.txt',
  'out/extension.js',
  'out/extensionMain.js',
  'out/mathWorker.js',
  'out/overviewWorker.js',
  'out/workbenchWorker.js',
  'out/webview.js',
  'out/datasetView.js',
  'out/dashboard.js',
  'out/diffView.js',
  'out/workbench.js',
  'media/icon.png',
];
const VSIX_MUST_NOT_MATCH = [
  /^src\//,
  /^test\//,
  /^node_modules\//,
  /^out\/test\//,
  /\.map$/,
  /^scripts\//,
  /\.ts$/,
  /^marketplace\//,
  /^docs\//,
  /^out\/core\.js$/,
  /^out\/cli\.js$/,
];

/** Why a shipped bundle is not a production build, or null: it is minified and names no sourcemap. */
function notProduction(name, text) {
  if (/sourceMappingURL/.test(text)) return `${name} names a sourcemap`;
  // Minified lines are long (what line breaks remain are in template strings and license
  // comments); esbuild's development output averages about 40 characters a line.
  const perLine = text.length / text.split('\n').length;
  return perLine < 200 ? `${name} is not minified (${perLine.toFixed(0)} characters a line)` : null;
}

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 180_000, maxBuffer: 64 << 20, ...opts });
  if (r.status !== 0)
    throw new Error(
      `${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}:\n${r.stdout ?? ''}${r.stderr ?? ''}${r.error?.message ?? ''}`,
    );
  return r;
}

const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;

/** Files of a zip (the .vsix) with their sizes, read with Python's zipfile: no new dependency. */
function zipEntries(file) {
  const py =
    'import sys, zipfile, json; print(json.dumps([[i.filename, i.file_size] for i in zipfile.ZipFile(sys.argv[1]).infolist()]))';
  return JSON.parse(sh('python3', ['-c', py, file]).stdout);
}

function zipRead(file, name) {
  return sh('python3', [
    '-c',
    'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())',
    file,
    name,
  ]).stdout;
}

/** Width and height of a PNG from its IHDR chunk. */
function pngSize(buf) {
  if (buf.toString('latin1', 1, 4) !== 'PNG') throw new Error('not a PNG');
  return [buf.readUInt32BE(16), buf.readUInt32BE(20)];
}

const tmp = makeTempDir('vtask-package-');

const STEPS = [
  {
    name: 'npm pack holds only the CLI (for production), its worker, the built-in model, README and LICENSE',
    run() {
      // With its scripts: `prepare` builds the CLI for production, `postpack` for development again.
      const r = sh('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: REPO });
      const [info] = JSON.parse(r.stdout);
      console.log(`    ${info.filename}: ${kib(info.size)} packed, ${kib(info.unpackedSize)} unpacked`);
      for (const f of info.files) console.log(`      ${kib(f.size).padStart(9)}  ${f.path}`);
      const files = info.files.map((f) => f.path).sort();
      const want = [
        ...NPM_FILES,
        ...(fs.existsSync(path.join(REPO, 'docs'))
          ? fs.readdirSync(path.join(REPO, 'docs')).map((f) => `docs/${f}`)
          : []),
      ].sort();
      if (JSON.stringify(files) !== JSON.stringify(want))
        throw new Error(`tarball files ${JSON.stringify(files)}, expected ${JSON.stringify(want)}`);
      if (pkg.dependencies && Object.keys(pkg.dependencies).length)
        throw new Error(
          `the CLI is bundled; runtime dependencies would be downloaded for nothing: ${Object.keys(pkg.dependencies)}`,
        );
      fs.renameSync(path.join(tmp, info.filename), path.join(tmp, 'vtask.tgz'));
      const unpacked = path.join(tmp, 'unpacked');
      fs.mkdirSync(unpacked);
      sh('tar', ['xzf', path.join(tmp, 'vtask.tgz'), '-C', unpacked]);
      const problems = ['out/cli.js', 'out/mathWorker.js']
        .map((f) => notProduction(f, fs.readFileSync(path.join(unpacked, 'package', f), 'utf8')))
        .filter(Boolean);
      // The tests run out/ as built for development: npm pack must leave it so.
      if (!/sourceMappingURL/.test(fs.readFileSync(path.join(REPO, 'out/cli.js'), 'utf8')))
        problems.push('out/cli.js was left a production build after npm pack');
      if (problems.length) throw new Error(problems.join('; '));
    },
  },
  {
    name: `installed globally from the tarball, offline, vtask check/test/run work on examples/ (Node ${process.versions.node})`,
    needs: 0,
    run() {
      const prefix = path.join(tmp, 'prefix');
      sh('npm', ['install', '--global', '--offline', '--prefix', prefix, path.join(tmp, 'vtask.tgz')], { cwd: tmp });
      const vtask = path.join(prefix, 'bin/vtask');
      // From a folder outside the repo, so nothing is found through the working directory.
      const work = path.join(tmp, 'work');
      fs.cpSync(path.join(REPO, 'examples'), work, { recursive: true });
      const env = { ...process.env, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` };
      const check = sh(vtask, ['check', '.'], { cwd: work, env });
      console.log(`    vtask check .: ${check.stdout.trim().split('\n').pop()}`);
      const test = sh(vtask, ['test', '.'], { cwd: work, env });
      const last = test.stdout.trim().split('\n').pop();
      console.log(`    vtask test .: ${last}`);
      if (!/^\d+ passed, 0 failed/.test(last)) throw new Error(`vtask test: ${test.stdout}`);
      const run = sh(
        vtask,
        ['run', 'arithmetic.vtask', '--samples', '4', '--json', '--cache-dir', path.join(tmp, 'cache')],
        { cwd: work, env },
      );
      const result = JSON.parse(run.stdout);
      const tasks = result.tasks ?? result;
      const first = tasks[0];
      if (!first || first.samples.length !== 4 || typeof first.pass_rate !== 'number')
        throw new Error(`vtask run --json: ${run.stdout.slice(0, 400)}`);
      // examples/arithmetic.vtask names the built-in weak model: profile `weak`, base_url builtin:arith-weak.
      if (first.model !== 'weak' || !/arith-weak/.test(first.profile ?? ''))
        throw new Error(`sampled ${first.model} (${first.profile}), not the built-in model`);
      console.log(
        `    vtask run: ${tasks.length} tasks, ${first.task} pass rate ${first.pass_rate} with ${first.model} (${first.profile})`,
      );
    },
  },
  {
    name: '`npm run package` makes a .vsix for the Marketplace and Open VSX: production bundles, no CLI or core, its main loads',
    run() {
      const vsix = path.join(tmp, 'vtask.vsix');
      for (const w of packageVsix(vsix)) console.log(`    vsce: ${w.trim()}`);
      const entries = zipEntries(vsix)
        .filter(([n]) => n.startsWith('extension/'))
        .map(([n, size]) => [n.slice('extension/'.length), size]);
      console.log(`    vtask.vsix: ${kib(fs.statSync(vsix).size)}, ${entries.length} files`);
      for (const [n, size] of entries.filter(([n]) => !n.startsWith('out/codicons/')))
        console.log(`      ${kib(size).padStart(9)}  ${n}`);
      const names = entries.map(([n]) => n);
      const missing = VSIX_MUST_HOLD.filter((f) => !names.includes(f));
      const extra = names.filter((f) => VSIX_MUST_NOT_MATCH.some((re) => re.test(f)));
      if (missing.length || extra.length) throw new Error(`vsix: missing [${missing}], unwanted [${extra}]`);
      const dev = names
        .filter((n) => /^out\/[^/]+\.js$/.test(n))
        .map((n) => notProduction(n, zipRead(vsix, `extension/${n}`)))
        .filter(Boolean);
      if (dev.length) throw new Error(dev.join('; '));
      const manifest = JSON.parse(zipRead(vsix, 'extension/package.json'));
      const readme = zipRead(vsix, 'extension/readme.md');
      // The minified main loads and exports activate (that VS Code activates it is the start and e2e stages' test).
      const main = path.join(tmp, 'vsix-main', manifest.main ?? '');
      fs.mkdirSync(path.dirname(main), { recursive: true });
      fs.writeFileSync(main, zipRead(vsix, `extension/${path.posix.normalize(manifest.main ?? '')}`));
      const load = spawnSync(
        process.execPath,
        [
          '-e',
          `const m = require(${JSON.stringify(main)}); if (typeof m.activate !== 'function') { console.error('no activate export'); process.exit(1); }`,
        ],
        { encoding: 'utf8', env: { ...process.env, NODE_PATH: writeVscodeStub(path.join(tmp, 'vscode-stub')) } },
      );
      if (load.status !== 0) throw new Error(`${manifest.main} does not load: ${load.stderr.slice(-1000)}`);
      const problems = [];
      if (!/^https:\/\/github\.com\//.test(manifest.repository?.url ?? ''))
        problems.push(`repository ${manifest.repository?.url}`);
      if (!manifest.license) problems.push('no license');
      if (manifest.enabledApiProposals?.length) problems.push(`proposed APIs ${manifest.enabledApiProposals}`);
      if (!manifest.galleryBanner?.color) problems.push('no galleryBanner');
      // The project's own links; a setting's description may show an example host (api.example.com).
      if (
        /example\.invalid|example\.com/.test(
          JSON.stringify([manifest.repository, manifest.homepage, manifest.bugs, manifest.qna]) + readme,
        )
      )
        problems.push('a placeholder URL');
      if (/## How vtask is built|npm test/.test(readme)) problems.push("the .vsix README is the developers' README");
      if (!/docs\/format\.md/.test(readme)) problems.push('the .vsix README does not link the format reference');
      const [w, h] = pngSize(
        Buffer.from(
          sh(
            'python3',
            [
              '-c',
              'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("extension/media/icon.png"))',
              vsix,
            ],
            { encoding: 'buffer' },
          ).stdout,
        ),
      );
      if (w !== 128 || h !== 128) problems.push(`icon ${w}×${h}, not 128×128`);
      // The floor must be a version that exists and no newer than the API types the code is checked with.
      if (!/^\^1\.\d+\.\d+$/.test(manifest.engines?.vscode ?? ''))
        problems.push(`engines.vscode ${manifest.engines?.vscode}`);
      if (problems.length) throw new Error(problems.join('; '));
    },
  },
];

await runMain(async () => {
  requireBuilt('out/cli.js', 'out/mathWorker.js', 'out/extension.js');
  let passed = 0;
  let failed = 0;
  const failedSteps = new Set();
  for (const [i, step] of STEPS.entries()) {
    const s0 = Date.now();
    try {
      if (step.needs !== undefined && failedSteps.has(step.needs))
        throw new Error(`not run: "${STEPS[step.needs].name}" failed`);
      await step.run();
      passed++;
      console.log(`  ✔ ${step.name} (${Date.now() - s0} ms)`);
    } catch (e) {
      failed++;
      failedSteps.add(i);
      console.log(
        `  ✘ ${step.name} (${Date.now() - s0} ms)\n    ${String(e?.message ?? e)
          .split('\n')
          .join('\n    ')}`,
      );
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
});
