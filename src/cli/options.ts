import { closest } from '../core/base/suggest';
import { cut } from '../core/util/cut';
import { UsageError } from './io';

/** A usage error for an option the command does not take, with the nearest one it does. */
export function unknownOption(arg: string, known: readonly string[]): UsageError {
  const flag = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
  const near = closest(flag, known);
  return new UsageError(`unknown option '${cut(flag)}'${near ? ` (did you mean '${near}'?)` : ''}`);
}

/** An integer flag within [min, max], as the matching field of a task file is bounded. */
export function boundedInt(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\s*[+-]?\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} takes an integer from ${min} to ${max}, not '${cut(value)}'`);
  }
  return n;
}

/** The arguments one at a time, `--flag value` and `--flag=value` alike; `value()` takes the flag's value. */
export function* eachArg(argv: readonly string[]): Generator<{ arg: string; flag: string; value(): string }> {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      const v = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (!v) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    yield { arg, flag, value };
  }
}

/** A share from 0 to 1 (a pass rate, an agreement), as `0.8`, `.5`, `1` or `1.0`. */
export function shareFlag(value: string, flag: string, what: string): number {
  const n = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || n > 1) throw new UsageError(`${flag} takes ${what} from 0 to 1; got '${cut(value)}'`);
  return n;
}

/** Where a command's model and sample cache come from, as `vtask run` resolves them. */
export interface ModelFlags {
  baseUrl?: string;
  model?: string;
  cacheDir?: string;
}

/**
 * Reads `--base-url`, `--model` and (when the command has a cache) `--cache-dir` into `into`;
 * false for any other flag, which the command reads itself.
 */
export function modelFlag(flag: string, value: () => string, into: ModelFlags, withCache = true): boolean {
  if (flag === '--base-url') into.baseUrl = value();
  else if (flag === '--model') into.model = value();
  else if (flag === '--cache-dir' && withCache) into.cacheDir = value();
  else return false;
  return true;
}
