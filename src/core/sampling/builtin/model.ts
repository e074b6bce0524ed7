// The forward pass of a small Llama-architecture model (GGUF architecture "llama"):
// RMSNorm, rotary embeddings on adjacent pairs, causal multi-head attention with a KV cache
// (grouped-query heads allowed), a SwiGLU MLP, and an output projection (or tied embeddings).
// One token at a time, in plain TypeScript: built for models of a few hundred thousand weights.
import { GgufError, type GgufFile, type GgufTensor, type GgufValue } from './gguf';
import { CharTokenizer } from './tokenizer';

export interface ModelConfig {
  readonly dim: number;
  readonly layers: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  readonly ffn: number;
  readonly contextLength: number;
  readonly vocab: number;
  readonly eps: number;
  readonly ropeBase: number;
  readonly ropeDims: number;
  readonly name: string;
}

interface Layer {
  readonly attnNorm: Float32Array;
  readonly wq: Float32Array;
  readonly wk: Float32Array;
  readonly wv: Float32Array;
  readonly wo: Float32Array;
  readonly ffnNorm: Float32Array;
  readonly gate: Float32Array;
  readonly up: Float32Array;
  readonly down: Float32Array;
}

/** Keys and values of the positions seen so far; `clone` lets samples share a prompt's prefill. */
export class KvCache {
  constructor(
    readonly keys: Float32Array[],
    readonly values: Float32Array[],
    public length = 0,
  ) {}

  clone(): KvCache {
    return new KvCache(
      this.keys.map((k) => k.slice()),
      this.values.map((v) => v.slice()),
      this.length,
    );
  }
}

function num(meta: ReadonlyMap<string, GgufValue>, key: string, fallback?: number): number {
  const v = meta.get(key);
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (fallback !== undefined) return fallback;
  throw new GgufError(`metadata ${key} is missing`);
}

// y[r] = Σ_c W[r * cols + c] · x[c]
function matVec(w: Float32Array, x: Float32Array, rows: number, cols: number, y: Float32Array): void {
  for (let r = 0, base = 0; r < rows; r++, base += cols) {
    let s = 0;
    for (let c = 0; c < cols; c++) s += w[base + c]! * x[c]!;
    y[r] = s;
  }
}

function rmsNorm(x: Float32Array, weight: Float32Array, eps: number, out: Float32Array): void {
  let ss = 0;
  for (let i = 0; i < x.length; i++) ss += x[i]! * x[i]!;
  const scale = 1 / Math.sqrt(ss / x.length + eps);
  for (let i = 0; i < x.length; i++) out[i] = x[i]! * scale * weight[i]!;
}

export class LlamaModel {
  readonly config: ModelConfig;
  readonly tokenizer: CharTokenizer;
  private readonly embedding: Float32Array;
  private readonly outputNorm: Float32Array;
  private readonly output: Float32Array;
  private readonly blocks: Layer[];
  private readonly cos: Float32Array;
  private readonly sin: Float32Array;
  // Scratch buffers, reused by every step (the engine is single-threaded).
  private readonly x: Float32Array;
  private readonly xn: Float32Array;
  private readonly q: Float32Array;
  private readonly att: Float32Array;
  private readonly proj: Float32Array;
  private readonly g: Float32Array;
  private readonly u: Float32Array;
  private readonly scores: Float32Array;

  constructor(file: GgufFile) {
    const meta = file.metadata;
    const arch = meta.get('general.architecture');
    if (arch !== 'llama') throw new GgufError(`architecture ${String(arch)} is not supported (only llama)`);
    const dim = num(meta, 'llama.embedding_length');
    const heads = num(meta, 'llama.attention.head_count');
    const headDim = dim / heads;
    const tokens = meta.get('tokenizer.ggml.tokens');
    if (!Array.isArray(tokens) || !tokens.every((t) => typeof t === 'string'))
      throw new GgufError('tokenizer.ggml.tokens is missing');
    const types = meta.get('tokenizer.ggml.token_type');
    const unk = meta.get('tokenizer.ggml.unknown_token_id');
    this.tokenizer = new CharTokenizer(
      tokens as string[],
      Array.isArray(types) ? (types as number[]) : undefined,
      num(meta, 'tokenizer.ggml.bos_token_id'),
      num(meta, 'tokenizer.ggml.eos_token_id'),
      typeof unk === 'number' ? unk : undefined,
    );
    const name = meta.get('general.name');
    this.config = {
      dim,
      layers: num(meta, 'llama.block_count'),
      heads,
      kvHeads: num(meta, 'llama.attention.head_count_kv', heads),
      headDim,
      ffn: num(meta, 'llama.feed_forward_length'),
      contextLength: num(meta, 'llama.context_length'),
      vocab: tokens.length,
      eps: num(meta, 'llama.attention.layer_norm_rms_epsilon', 1e-5),
      ropeBase: num(meta, 'llama.rope.freq_base', 10000),
      ropeDims: num(meta, 'llama.rope.dimension_count', headDim),
      name: typeof name === 'string' ? name : 'llama',
    };
    const c = this.config;
    if (!Number.isInteger(headDim) || heads % c.kvHeads !== 0) throw new GgufError('inconsistent head counts');
    const kvDim = c.kvHeads * headDim;
    const tensor = (key: string, ...dims: number[]): Float32Array => {
      const t: GgufTensor | undefined = file.tensors.get(key);
      if (!t) throw new GgufError(`tensor ${key} is missing`);
      if (t.dims.length !== dims.length || t.dims.some((d, i) => d !== dims[i]))
        throw new GgufError(`tensor ${key} has shape [${t.dims.join(', ')}], expected [${dims.join(', ')}]`);
      return t.data;
    };
    this.embedding = tensor('token_embd.weight', dim, c.vocab);
    this.outputNorm = tensor('output_norm.weight', dim);
    this.output = file.tensors.has('output.weight') ? tensor('output.weight', dim, c.vocab) : this.embedding;
    this.blocks = [];
    for (let l = 0; l < c.layers; l++) {
      const p = `blk.${l}.`;
      this.blocks.push({
        attnNorm: tensor(p + 'attn_norm.weight', dim),
        wq: tensor(p + 'attn_q.weight', dim, dim),
        wk: tensor(p + 'attn_k.weight', dim, kvDim),
        wv: tensor(p + 'attn_v.weight', dim, kvDim),
        wo: tensor(p + 'attn_output.weight', dim, dim),
        ffnNorm: tensor(p + 'ffn_norm.weight', dim),
        gate: tensor(p + 'ffn_gate.weight', dim, c.ffn),
        up: tensor(p + 'ffn_up.weight', dim, c.ffn),
        down: tensor(p + 'ffn_down.weight', c.ffn, dim),
      });
    }
    // Rotation angles pos · base^(-2i/ropeDims) for every position and pair.
    const pairs = c.ropeDims / 2;
    this.cos = new Float32Array(c.contextLength * pairs);
    this.sin = new Float32Array(c.contextLength * pairs);
    for (let pos = 0; pos < c.contextLength; pos++) {
      for (let i = 0; i < pairs; i++) {
        const angle = pos * Math.pow(c.ropeBase, (-2 * i) / c.ropeDims);
        this.cos[pos * pairs + i] = Math.cos(angle);
        this.sin[pos * pairs + i] = Math.sin(angle);
      }
    }
    this.x = new Float32Array(dim);
    this.xn = new Float32Array(dim);
    this.q = new Float32Array(dim);
    this.att = new Float32Array(dim);
    this.proj = new Float32Array(dim);
    this.g = new Float32Array(c.ffn);
    this.u = new Float32Array(c.ffn);
    this.scores = new Float32Array(c.contextLength);
  }

  newCache(): KvCache {
    const { layers, contextLength, kvHeads, headDim } = this.config;
    const size = contextLength * kvHeads * headDim;
    return new KvCache(
      Array.from({ length: layers }, () => new Float32Array(size)),
      Array.from({ length: layers }, () => new Float32Array(size)),
    );
  }

  private rotate(vec: Float32Array, offset: number, heads: number, pos: number): void {
    const { headDim, ropeDims } = this.config;
    const pairs = ropeDims / 2;
    for (let h = 0; h < heads; h++) {
      const base = offset + h * headDim;
      for (let i = 0; i < pairs; i++) {
        const c = this.cos[pos * pairs + i]!;
        const s = this.sin[pos * pairs + i]!;
        const a = vec[base + 2 * i]!;
        const b = vec[base + 2 * i + 1]!;
        vec[base + 2 * i] = a * c - b * s;
        vec[base + 2 * i + 1] = a * s + b * c;
      }
    }
  }

  /** Feeds one token at the cache's next position; returns the logits of the token after it. */
  step(token: number, cache: KvCache, logits = new Float32Array(this.config.vocab)): Float32Array {
    const { dim, layers, heads, kvHeads, headDim, ffn, eps, contextLength, vocab } = this.config;
    if (token < 0 || token >= vocab) throw new RangeError(`token ${token} outside the vocabulary`);
    const pos = cache.length;
    if (pos >= contextLength) throw new RangeError(`context length ${contextLength} exceeded`);
    const kvDim = kvHeads * headDim;
    const group = heads / kvHeads;
    const { x, xn, q, att, proj, g, u, scores } = this;
    x.set(this.embedding.subarray(token * dim, token * dim + dim));
    const invSqrt = 1 / Math.sqrt(headDim);
    for (let l = 0; l < layers; l++) {
      const B = this.blocks[l]!;
      const keys = cache.keys[l]!;
      const values = cache.values[l]!;
      rmsNorm(x, B.attnNorm, eps, xn);
      matVec(B.wq, xn, dim, dim, q);
      const kRow = keys.subarray(pos * kvDim, pos * kvDim + kvDim);
      const vRow = values.subarray(pos * kvDim, pos * kvDim + kvDim);
      matVec(B.wk, xn, kvDim, dim, kRow);
      matVec(B.wv, xn, kvDim, dim, vRow);
      this.rotate(q, 0, heads, pos);
      this.rotate(keys, pos * kvDim, kvHeads, pos);
      att.fill(0);
      for (let h = 0; h < heads; h++) {
        const qo = h * headDim;
        const ko = Math.floor(h / group) * headDim;
        let max = -Infinity;
        for (let t = 0; t <= pos; t++) {
          let s = 0;
          const kb = t * kvDim + ko;
          for (let i = 0; i < headDim; i++) s += q[qo + i]! * keys[kb + i]!;
          s *= invSqrt;
          scores[t] = s;
          if (s > max) max = s;
        }
        let total = 0;
        for (let t = 0; t <= pos; t++) {
          const e = Math.exp(scores[t]! - max);
          scores[t] = e;
          total += e;
        }
        for (let t = 0; t <= pos; t++) {
          const p = scores[t]! / total;
          const vb = t * kvDim + ko;
          for (let i = 0; i < headDim; i++) att[qo + i] = att[qo + i]! + p * values[vb + i]!;
        }
      }
      matVec(B.wo, att, dim, dim, proj);
      for (let i = 0; i < dim; i++) x[i] = x[i]! + proj[i]!;
      rmsNorm(x, B.ffnNorm, eps, xn);
      matVec(B.gate, xn, ffn, dim, g);
      matVec(B.up, xn, ffn, dim, u);
      for (let i = 0; i < ffn; i++) {
        const a = g[i]!;
        g[i] = (a / (1 + Math.exp(-a))) * u[i]!;
      }
      matVec(B.down, g, dim, ffn, proj);
      for (let i = 0; i < dim; i++) x[i] = x[i]! + proj[i]!;
    }
    cache.length = pos + 1;
    rmsNorm(x, this.outputNorm, eps, xn);
    matVec(this.output, xn, vocab, dim, logits);
    return logits;
  }
}
