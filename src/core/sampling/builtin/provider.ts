// The in-process provider for `builtin:` profiles: tiny DEMO models that do two-number
// arithmetic ("What is 17+25?"), or call add/sub/mul tools for it (`calculator`), trained by
// models/train.py. They exist so that sampling, statistics, the panel and agent tasks work with
// zero setup and offline; they are not general chat models.
import { errorMessage } from '../../base/errorMessage';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ToolCall } from '../../base/chat';
import { SamplingError, type Provider, type Sample, type SampleRequest } from '../types';
import { generate, loadModel, prefill } from './engine';
import { CancelledError } from '../../util/wait';
import type { LlamaModel } from './model';
import { promptFor } from './prompt';
import { CALL_CLOSE, callId, callsSoFar, parseCall, toolPromptFor } from './toolPrompt';

/** Built-in model names and their files in `models/`. `arith-tiny` is the strong variant. */
export const BUILTIN_MODELS: Readonly<Record<string, string>> = {
  'arith-tiny': 'arith-strong.gguf',
  'arith-strong': 'arith-strong.gguf',
  'arith-weak': 'arith-weak.gguf',
  calculator: 'calculator.gguf',
};

/**
 * The built-in model that calls tools (the `T:/Q:/A:/R:` format of toolPrompt.ts). A request with
 * tools to an arithmetic model is answered by it, so that agent tasks run with the default model.
 */
export const BUILTIN_TOOL_MODEL = 'calculator';
const TOOL_FORMAT_MODELS: ReadonlySet<string> = new Set([BUILTIN_TOOL_MODEL]);
/** A call is about 35 characters (`<call>mul{"a":345,"b":678}</call>`): the default leaves room for it. */
export const DEFAULT_BUILTIN_TOOL_MAX_TOKENS = 48;

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
  /** `arith-tiny` (default), `arith-strong`, `arith-weak` or `calculator`. */
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
      throw new SamplingError(
        `built-in model ${this.model} does not exist (available: ${Object.keys(BUILTIN_MODELS).join(', ')})`,
        'not-found',
      );
    }
  }

  private load(name: string): LlamaModel {
    const file = (name === this.model ? this.file : undefined) ?? resolveBuiltinModelFile(BUILTIN_MODELS[name]!);
    if (!file)
      throw new SamplingError(
        `built-in model ${name}: ${BUILTIN_MODELS[name]} not found (looked in models/ next to the extension and in the working directory)`,
        'not-found',
      );
    try {
      return loadModel(file);
    } catch (e) {
      throw new SamplingError(`built-in model ${name}: cannot load ${file}: ${errorMessage(e)}`, 'server');
    }
  }

  async listModels(_signal: AbortSignal): Promise<string[]> {
    return Object.keys(BUILTIN_MODELS);
  }

  async sample(request: SampleRequest, n: number, signal: AbortSignal): Promise<Sample[]> {
    if (signal.aborted) throw SamplingError.cancelled();
    const tools = request.tools ?? [];
    // Tool requests to an arithmetic model go to the calculator model (a given file stays as it is).
    const name =
      tools.length > 0 && !this.file && !TOOL_FORMAT_MODELS.has(this.model) ? BUILTIN_TOOL_MODEL : this.model;
    const toolFormat = TOOL_FORMAT_MODELS.has(name);
    const model = this.load(name);
    const maxTokens = request.maxTokens ?? (toolFormat ? DEFAULT_BUILTIN_TOOL_MAX_TOKENS : DEFAULT_BUILTIN_MAX_TOKENS);
    const temperature = request.temperature ?? 1;
    const topP = request.topP ?? 1;
    if (!(maxTokens >= 1) || !(temperature >= 0) || !(topP > 0 && topP <= 1)) {
      throw new SamplingError(
        `bad sampling parameters (max_tokens ${maxTokens}, temperature ${temperature}, top_p ${topP})`,
        'bad-request',
      );
    }
    const stop =
      request.stop === undefined ? [] : typeof request.stop === 'string' ? [request.stop] : [...request.stop];
    // The model answers on one line: a newline ends the answer, as in training; so does a call.
    stop.push('\n');
    if (toolFormat) stop.push(CALL_CLOSE);
    const seed = request.seed ?? this.seed;
    const first = request.index ?? 0;
    const turn = callsSoFar(request.messages);
    const started = Date.now();
    const prompt = toolFormat ? toolPromptFor(request.messages, tools) : promptFor(request.messages);
    const start = prefill(model, prompt, maxTokens);
    const out: Sample[] = [];
    for (let k = 0; k < n; k++) {
      // Long runs must not freeze the extension host: let other work in between samples.
      if (k > 0) await yieldToLoop();
      if (signal.aborted) throw SamplingError.cancelled();
      const t0 = Date.now();
      const sampleSeed = seed !== undefined ? seed + first + k : crypto.randomInt(0, 2 ** 48 - 1);
      let g;
      try {
        g = generate(model, start, { maxTokens, temperature, topP, seed: sampleSeed, stop, signal });
      } catch (e) {
        if (e instanceof CancelledError) throw SamplingError.cancelled();
        throw e;
      }
      // A call is only a call when the request offered tools; else it is text like any other.
      const call = tools.length > 0 && g.stoppedBy === CALL_CLOSE ? parseCall(g.text + CALL_CLOSE) : null;
      const toolCalls: ToolCall[] | undefined = call ? [{ id: callId(sampleSeed, turn), ...call }] : undefined;
      out.push({
        text: toolCalls ? '' : g.stoppedBy === CALL_CLOSE ? g.text + CALL_CLOSE : g.text,
        finishReason: toolCalls ? 'tool_calls' : g.finishReason,
        ...(toolCalls ? { toolCalls } : {}),
        ...(g.finishReason === 'length' ? { truncated: true } : {}),
        usage: { promptTokens: start.promptTokens, completionTokens: g.completionTokens },
        model: name,
        takenAt: new Date().toISOString(),
        // The shared prompt prefill is counted in the first sample.
        latencyMs: Date.now() - (k === 0 ? started : t0),
      });
    }
    return out;
  }
}
