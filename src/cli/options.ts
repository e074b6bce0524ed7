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
