// A hash of everything the build reads (names and contents), written to out/.inputs-hash by a
// build: scripts/test-all.mjs compares it to tell whether out/ is what the sources make.
// Contents, not mtimes: a checkout, a stash or an editor that keeps mtimes must not leave an old
// build looking current.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
export const HASH_FILE = path.join(ROOT, 'out/.inputs-hash');

/** Every file under dir (recursively) whose name matches re, in folders whose name skip does not match. */
export function walk(dir, re, skip = /^$/) {
  if (!fs.existsSync(dir)) return [];
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!skip.test(e.name)) out.push(...walk(p, re, skip));
    } else if (re.test(e.name)) out.push(p);
  }
  return out.sort();
}

export function inputsHash() {
  const inputs = [
    ...walk(path.join(ROOT, 'src'), /./, /^node_modules$/),
    // Fixtures are read at run time and the harness runs as it is: neither is built.
    ...walk(path.join(ROOT, 'test'), /\.(ts|tsx|mts)$/, /^(fixtures|harness|node_modules)$/),
    ...['package.json', 'tsconfig.json', 'scripts/build.mjs']
      .map((p) => path.join(ROOT, p))
      .filter((p) => fs.existsSync(p)),
  ];
  const h = createHash('sha256');
  for (const p of inputs) h.update(path.relative(ROOT, p)).update('\0').update(fs.readFileSync(p)).update('\0');
  return h.digest('hex');
}

/** True when out/ was built from the sources as they are now. */
export const buildIsCurrent = () =>
  fs.existsSync(HASH_FILE) && fs.readFileSync(HASH_FILE, 'utf8').trim() === inputsHash();
