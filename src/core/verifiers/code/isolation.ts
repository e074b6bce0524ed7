import { isRecord } from '../../base/record';
import type { Isolation } from '../../base/isolation';
import type { Verdict } from '../verdict';

function isIsolation(v: unknown): v is Isolation {
  return isRecord(v) && typeof v.method === 'string' && (v.level === 'full' || v.level === 'weak');
}

/**
 * How the code behind a verdict was isolated: its own `details.isolation`, or the weakest found
 * among nested verdicts (`all`, `any`, `weighted` keep their children's details). Undefined when
 * no code ran.
 */
export function isolationOf(v: Pick<Verdict, 'details'>): Isolation | undefined {
  let found: Isolation | undefined;
  const visit = (node: unknown, depth: number): void => {
    if (!node || typeof node !== 'object' || depth > 8) return;
    if (Array.isArray(node)) {
      for (const x of node) visit(x, depth + 1);
      return;
    }
    for (const [k, x] of Object.entries(node)) {
      if (k === 'isolation' && isIsolation(x)) {
        if (!found || (found.level === 'full' && x.level === 'weak')) found = x;
      } else visit(x, depth + 1);
    }
  };
  visit(v.details, 0);
  return found;
}
