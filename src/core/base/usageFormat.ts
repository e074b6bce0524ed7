// How tokens and dollars read, the same in the CLI, the editor and the dashboard page (which may
// import only this floor): thousands separators, and cents that do not round a small run to $0.00.

/** A token count with thousands separators. */
export function count(x: number): string {
  return x.toLocaleString('en-US');
}

/** Dollars to the cent, or to two significant digits below a cent (a small run must not read as $0.00). */
export function dollars(x: number): string {
  return `$${x < 0.01 && x > 0 ? x.toPrecision(2) : x.toFixed(2)}`;
}
