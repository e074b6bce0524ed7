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
