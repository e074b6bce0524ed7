// Tool arguments of the same shape as a passing case's, with every value wrong: the same calls
// made for show. A verifier that still passes the trajectory (with the case's right answer)
// cannot tell the work done from a model that answers from memory and calls the tools anyway.
import { wrongLike } from './gold';
import { isRecord } from '../base/record';

type Schema = Readonly<Record<string, unknown>> | undefined;

const asSchema = (s: unknown): Schema => (isRecord(s) ? s : undefined);

/**
 * Every value of `args` changed, keeping its type: another member of an `enum`, a number made
 * larger, a string of the same shape (`fr` → `Lyon`, `order-7` → `order-8`), a boolean negated,
 * inside lists and objects too. Undefined when nothing could change (no arguments, only nulls).
 */
export function wrongArgs(
  args: Readonly<Record<string, unknown>>,
  schema: unknown,
): Record<string, unknown> | undefined {
  // The n-th number grows by n: the same step for all would keep a difference (909 - 78 is 831 too).
  let n = 0;
  const changed = wrongValue(args, asSchema(schema), () => ++n);
  return changed.changed && isRecord(changed.value) ? changed.value : undefined;
}

function wrongValue(v: unknown, schema: Schema, step: () => number): { value: unknown; changed: boolean } {
  const choices = schema?.enum;
  const options: unknown[] | undefined = Array.isArray(choices) ? choices : undefined;
  if (options) {
    const other = options.find((o) => JSON.stringify(o) !== JSON.stringify(v));
    return other === undefined ? { value: v, changed: false } : { value: other, changed: true };
  }
  if (typeof v === 'number') return { value: v + step(), changed: true };
  if (typeof v === 'boolean') return { value: !v, changed: true };
  if (typeof v === 'string') return { value: wrongLike(v), changed: true };
  if (Array.isArray(v)) {
    const items = v.map((x) => wrongValue(x, asSchema(schema?.items), step));
    return { value: items.map((x) => x.value), changed: items.some((x) => x.changed) };
  }
  if (v && typeof v === 'object') {
    const props = asSchema(schema?.properties);
    const entries = Object.entries(v).map(([k, x]) => [k, wrongValue(x, asSchema(props?.[k]), step)] as const);
    return {
      value: Object.fromEntries(entries.map(([k, x]) => [k, x.value])),
      changed: entries.some(([, x]) => x.changed),
    };
  }
  return { value: v, changed: false };
}
