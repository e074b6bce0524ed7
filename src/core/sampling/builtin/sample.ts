// Seeded token sampling: a small PRNG (xoshiro128**, seeded through splitmix32), temperature,
// nucleus (top_p) truncation, and greedy decoding at temperature 0.

function splitmix32(state: number): [number, number] {
  const next = (state + 0x9e3779b9) | 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [next, (z ^ (z >>> 16)) >>> 0];
}

/** xoshiro128**: sample k with seed s draws the same numbers on every run and platform. */
export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    // Integers beyond 32 bits (and negatives) keep their high bits in the state.
    const lo = Number.isFinite(seed) ? Math.trunc(seed) >>> 0 : 0;
    const hi = Number.isFinite(seed) ? Math.floor(Math.trunc(seed) / 4294967296) >>> 0 : 0;
    let st = lo ^ Math.imul(hi, 0x27d4eb2f);
    const words: number[] = [];
    for (let i = 0; i < 4; i++) {
      const [next, out] = splitmix32(st);
      st = next;
      words.push(out);
    }
    [this.s0, this.s1, this.s2, this.s3] = words as [number, number, number, number];
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** The next 32 random bits, unsigned. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }
}

const rotl = (x: number, k: number): number => (x << k) | (x >>> (32 - k));

/** The index of the largest logit (the first one on ties). */
export function argmax(logits: Float32Array): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i]! > logits[best]!) best = i;
  return best;
}

/**
 * Picks the next token. Temperature ≤ 0 is greedy. Otherwise softmax(logits / T), restricted to
 * the smallest set of most probable tokens whose mass reaches `topP`, then one draw `u` walked
 * through the kept tokens in id order.
 */
export function pickToken(logits: Float32Array, temperature: number, topP: number, rng: Rng): number {
  if (!(temperature > 0)) return argmax(logits);
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i]! > max) max = logits[i]!;
  const probs = new Float64Array(logits.length);
  let total = 0;
  for (let i = 0; i < logits.length; i++) {
    const e = Math.exp((logits[i]! - max) / temperature);
    probs[i] = e;
    total += e;
  }
  if (topP < 1) {
    const order = Array.from(probs.keys()).sort((a, b) => probs[b]! - probs[a]! || a - b);
    const keep = new Uint8Array(probs.length);
    let mass = 0;
    for (const i of order) {
      keep[i] = 1;
      mass += probs[i]!;
      if (mass >= topP * total) break;
    }
    total = 0;
    for (let i = 0; i < probs.length; i++) {
      if (!keep[i]) probs[i] = 0;
      total += probs[i]!;
    }
  }
  let r = rng.next() * total;
  let last = 0;
  for (let i = 0; i < probs.length; i++) {
    if (probs[i]! <= 0) continue;
    last = i;
    r -= probs[i]!;
    if (r < 0) return i;
  }
  return last;
}
