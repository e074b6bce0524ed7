// What `vtask stats` remembers between runs, in the cache folder, per vtask version:
//
//   stats/<version>/files/<sha1 of the file's text>.json   a file's summary (summary.ts)
//   stats/<version>/cases.json                             case outcomes by cases key
//
// Both are derived data: deleting `stats/` costs one slower run. A file's summary is valid for
// exactly its text; the case outcomes outlive edits of other tasks of the same file.
import fs from 'node:fs';
import path from 'node:path';
import { SampleCache } from '../sampling/cache';
import { version } from '../version';
import type { CaseCounts, CaseMemo, FileSummary } from './summary';

export class StatsMemo implements CaseMemo {
  private readonly root: string;
  private cases: Map<string, CaseCounts> | undefined;
  private casesChanged = false;
  private ready = false;

  constructor(private readonly cacheDir: string) {
    this.root = path.join(cacheDir, 'stats', version.replace(/[^\w.-]/g, '_'));
  }

  /** The remembered summary of a file whose text hashes to `hash`, if any and readable. */
  fileSummary(hash: string): FileSummary | undefined {
    try {
      const s = JSON.parse(fs.readFileSync(path.join(this.root, 'files', `${hash}.json`), 'utf8')) as FileSummary;
      return Array.isArray(s.tasks) && typeof s.errors === 'number' ? s : undefined;
    } catch {
      return undefined;
    }
  }

  putFileSummary(hash: string, s: FileSummary): void {
    if (!this.ensure()) return;
    writeQuietly(path.join(this.root, 'files', `${hash}.json`), JSON.stringify(s));
  }

  get(casesKey: string): CaseCounts | undefined {
    return this.loadCases().get(casesKey);
  }

  set(casesKey: string, counts: CaseCounts): void {
    this.loadCases().set(casesKey, counts);
    this.casesChanged = true;
  }

  /** Writes the case outcomes learnt in this run. A memo that cannot be written is only slower. */
  save(): void {
    if (!this.casesChanged || !this.cases || !this.ensure()) return;
    writeQuietly(path.join(this.root, 'cases.json'), JSON.stringify(Object.fromEntries(this.cases)));
    this.casesChanged = false;
  }

  private loadCases(): Map<string, CaseCounts> {
    if (!this.cases) {
      try {
        this.cases = new Map(Object.entries(JSON.parse(fs.readFileSync(path.join(this.root, 'cases.json'), 'utf8')) as Record<string, CaseCounts>));
      } catch {
        this.cases = new Map();
      }
    }
    return this.cases;
  }

  private ensure(): boolean {
    if (this.ready) return true;
    try {
      // The cache folder as `vtask run` makes it (ignored by git, tagged as a cache).
      const cache = SampleCache.open(this.cacheDir);
      cache.ensureDir();
      cache.close();
      fs.mkdirSync(path.join(this.root, 'files'), { recursive: true });
      this.ready = true;
    } catch {
      // A read-only or missing place: the statistics are still right, only not remembered.
    }
    return this.ready;
  }
}

/** Writes through a temporary name, so a concurrent reader never sees half a file. */
function writeQuietly(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  } catch {
    fs.rmSync(tmp, { force: true });
  }
}
