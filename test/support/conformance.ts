// The peers' conformance data, read from ../shared/conformance beside the repository.
import fs from 'node:fs';
import path from 'node:path';

export const CONFORMANCE_DIR = path.resolve(process.cwd(), '../shared/conformance');

/** One JSON value per non-blank line of a conformance file. */
export function readJsonl<T>(name: string): T[] {
  return fs
    .readFileSync(path.join(CONFORMANCE_DIR, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

export function readJson<T>(name: string): T {
  return JSON.parse(fs.readFileSync(path.join(CONFORMANCE_DIR, name), 'utf8')) as T;
}
