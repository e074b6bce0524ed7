// The in-process provider for `builtin:` profiles: a tiny DEMO model that does two-number
// arithmetic ("What is 17+25?"), trained by models/train.py. It exists so that sampling,
// statistics and the panel work with zero setup and offline; it is not a general chat model.
import { errorMessage } from '../../base/errorMessage';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SamplingError, type Provider, type Sample, type SampleRequest } from '../types';
import { AbortedError, generate, loadModel, prefill } from './engine';
import type { LlamaModel } from './model';
import { promptFor } from './prompt';

/** Built-in model names and their files in `models/`. `arith-tiny` is the strong variant. */
export const BUILTIN_MODELS: Readonly<Record<string, string>> = {
  'arith-tiny': 'arith-strong.gguf',
  'arith-strong': 'arith-strong.gguf',
  'arith-weak': 'arith-weak.gguf',
};

export const DEFAULT_BUILTIN_MODEL = 'arith-tiny';
/** Answers are a few digits; the default keeps a confused model from rambling. */
export const DEFAULT_BUILTIN_MAX_TOKENS = 16;

let modelDir: string | undefined;

/** Where the built-in model files are, when not in `models/` next to the bundle or the working directory. */
export function setBuiltinModelDir(dir: string | undefined): void {
  modelDir = dir;
}

/** The path of a built-in model file, or null when it is nowhere to be found. */
export function resolveBuiltinModelFile(file: string): string | null {
  const here = typeof __dirname === 'string' ? __dirname : process.cwd();
  const candidates = [
    modelDir,
    process.env.VTASK_MODELS_DIR,
    // out/cli.js, out/extension.js -> <root>/models
    path.join(here, '..', 'models'),
    path.join(here, 'models'),
    // out/test/core/*.js, src/core/sampling/builtin/*.ts
    path.join(here, '..', '..', 'models'),
    path.join(here, '..', '..', '..', 'models'),
    path.join(here, '..', '..', '..', '..', 'models'),
    path.resolve(process.cwd(), 'models'),
  ];
  for (const dir of candidates) {
    if (!dir) continue;
    const p = path.join(dir, file);
    if (fs.existsSync(p)) return p;
  }
  return null;
}

export interface BuiltinProviderOptions {
  /** `arith-tiny` (default), `arith-strong` or `arith-weak`. */
  readonly model?: string;
  /** A GGUF file to use instead of the named model's. */
  readonly file?: string;
  /** The seed when neither the request nor the profile sets one (else each sample gets a random one). */
  readonly seed?: number;
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class BuiltinProvider implements Provider {
  readonly id: string;
  readonly model: string;
  private readonly file: string | undefined;
  private readonly seed: number | undefined;

  constructor(options: BuiltinProviderOptions = {}) {
    this.model = options.model ?? DEFAULT_BUILTIN_MODEL;
    this.id = `builtin:${this.model}`;
    this.file = options.file;
    this.seed = options.seed;
    if (!this.file && !(this.model in BUILTIN_MODELS)) {
      throw new SamplingError(`built-in model ${this.model} does not exist (available: ${Object.keys(BUILTIN_MODELS).join(', ')})`, 'not-found');
    }
  }

  private load(): LlamaModel {
    const file = this.file ?? resolveBuiltinModelFile(BUILTIN_MODELS[this.model]!);
    if (!file) throw new SamplingError(`built-in model ${this.model}: ${BUILTIN_MODELS[this.model]} not found (looked in models/ next to the extension and in the working directory)`, 'not-found');
    try {
      return loadModel(file);
    } catch (e) {
      throw new SamplingError(`built-in model ${this.model}: cannot load ${file}: ${errorMessage(e)}`, 'server');
    }
  }

  async listModels(_signal: AbortSignal): Promise<string[]> {
    return Object.keys(BUILTIN_MODELS);
  }

  async sample(request: SampleRequest, n: number, signal: AbortSignal): Promise<Sample[]> {
    if (signal.aborted) throw new SamplingError('cancelled', 'cancelled');
    const model = this.load();
    const maxTokens = request.maxTokens ?? DEFAULT_BUILTIN_MAX_TOKENS;
    const temperature = request.temperature ?? 1;
    const topP = request.topP ?? 1;
    if (!(maxTokens >= 1) || !(temperature >= 0) || !(topP > 0 && topP <= 1)) {
      throw new SamplingError(`bad sampling parameters (max_tokens ${maxTokens}, temperature ${temperature}, top_p ${topP})`, 'bad-request');
    }
    const stop = request.stop === undefined ? [] : typeof request.stop === 'string' ? [request.stop] : [...request.stop];
    // The model answers on one line: a newline ends the answer, as in training.
    stop.push('\n');
    const seed = request.seed ?? this.seed;
    const first = request.index ?? 0;
    const started = Date.now();
    const start = prefill(model, promptFor(request.messages), maxTokens);
    const out: Sample[] = [];
    for (let k = 0; k < n; k++) {
      // Long runs must not freeze the extension host: let other work in between samples.
      if (k > 0) await yieldToLoop();
      if (signal.aborted) throw new SamplingError('cancelled', 'cancelled');
      const t0 = Date.now();
      let g;
      try {
        g = generate(model, start, {
          maxTokens,
          temperature,
          topP,
          seed: seed !== undefined ? seed + first + k : crypto.randomInt(0, 2 ** 48 - 1),
          stop,
          signal,
        });
      } catch (e) {
        if (e instanceof AbortedError) throw new SamplingError('cancelled', 'cancelled');
        throw e;
      }
      out.push({
        text: g.text,
        finishReason: g.finishReason,
        ...(g.finishReason === 'length' ? { truncated: true } : {}),
        usage: { promptTokens: start.promptTokens, completionTokens: g.completionTokens },
        model: this.model,
        takenAt: new Date().toISOString(),
        // The shared prompt prefill is counted in the first sample.
        latencyMs: Date.now() - (k === 0 ? started : t0),
      });
    }
    return out;
  }
}
