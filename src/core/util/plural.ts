// Counts in messages: "1 task", "2 tasks", "0 tasks". One helper, so no message says "1 tasks".

/** The noun that agrees with `n`: `one` for exactly 1, else `many` (given for irregular plurals). */
export function noun(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** `n` and its noun: "1 task", "3 tasks". For a count shown otherwise (1,000), use `noun`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${noun(n, one, many)}`;
}
