// `npm run package`: the .vsix as it ships. Its bundles are built for production (minified, no
// sourcemaps) into a staging folder beside the files .vscodeignore lets through, and vsce packs
// that folder, so out/ keeps the development build the tests run. `-o FILE` names the .vsix
// (default out/vtask.vsix).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const o = process.argv.indexOf('-o');
const vsix = path.resolve(o >= 0 ? process.argv[o + 1] : path.join(root, 'out/vtask.vsix'));
// Its own folder each time: two packagings at once (test stages) must not share one.
const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-vsix-'));

// What the .vsix holds beside the bundles: .vscodeignore's allowlist chooses within these.
const COPIED = [
  'package.json',
  'LICENSE',
  'CHANGELOG.md',
  'language-configuration.json',
  '.vscodeignore',
  'marketplace',
  'syntaxes',
  'snippets',
  'media',
  'walkthrough',
  'schemas',
  'models',
];

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
  if (r.status === 0) return;
  fs.rmSync(stage, { recursive: true, force: true });
  process.exit(r.status ?? 1);
}

for (const f of [...COPIED, ...fs.readdirSync(root).filter((n) => /^package\.nls.*\.json$/.test(n))]) {
  if (fs.existsSync(path.join(root, f))) fs.cpSync(path.join(root, f), path.join(stage, f), { recursive: true });
}
run(
  process.execPath,
  [path.join(root, 'scripts/build.mjs'), '--production', '--only=vsix', `--out=${path.join(stage, 'out')}`],
  root,
);
run(
  path.join(root, 'node_modules/.bin/vsce'),
  ['package', '--no-dependencies', '--readme-path', 'marketplace/README.md', '-o', vsix],
  stage,
);
fs.rmSync(stage, { recursive: true, force: true });
