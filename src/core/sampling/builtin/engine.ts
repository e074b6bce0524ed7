// Loading (once per file) and text generation with the built-in models.
import fs from 'node:fs';
import { parseGguf } from './gguf';
import { LlamaModel, type KvCache } from './model';
import { Rng, pickToken } from './sample';
import { CancelledError } from '../../util/wait';

const loaded = new Map<string, LlamaModel>();

/** The model in a GGUF file, read and decoded on first use and kept for the process's life. */
export function loadModel(file: string): LlamaModel {
  let model = loaded.get(file);
  if (!model) {
    model = new LlamaModel(parseGguf(fs.readFileSync(file)));
    loaded.set(file, model);
  }
  return model;
}

/** Forgets loaded models (tests, or after a model file changed). */
export function clearModelCache(): void {
  loaded.clear();
}

export interface GenerateOptions {
  readonly maxTokens: number;
  readonly temperature: number;
  readonly topP: number;
  readonly seed: number;
  /** Strings that end the answer; the answer is cut before the first one. */
  readonly stop: readonly string[];
  readonly signal?: AbortSignal;
}

export interface Generation {
  readonly text: string;
  readonly finishReason: 'stop' | 'length';
  readonly completionTokens: number;
  /** The stop string that ended the answer (cut from `text`), when one did. */
  readonly stoppedBy?: string;
}

/** A prompt fed through the model once, to be continued by any number of samples. */
export interface Prefill {
  readonly cache: KvCache;
  readonly logits: Float32Array;
  readonly promptTokens: number;
}

/**
 * Feeds BOS and the prompt's tokens. A prompt longer than the context keeps its end (the part
 * next to the answer), leaving room for `reserve` answer tokens (at most a quarter of the context).
 */
export function prefill(model: LlamaModel, prompt: string, reserve: number): Prefill {
  const tok = model.tokenizer;
  let ids = tok.encode(prompt);
  const ctx = model.config.contextLength;
  const room = Math.max(1, ctx - 1 - Math.min(Math.max(1, reserve), Math.floor(ctx / 4)));
  if (ids.length > room) ids = ids.slice(ids.length - room);
  const cache = model.newCache();
  let logits = model.step(tok.bos, cache);
  for (const id of ids) logits = model.step(id, cache);
  return { cache, logits, promptTokens: ids.length + 1 };
}

/** One answer continuing a prefilled prompt (the prefill itself is left untouched). */
export function generate(model: LlamaModel, start: Prefill, options: GenerateOptions): Generation {
  const tok = model.tokenizer;
  const cache = start.cache.clone();
  const logits = start.logits.slice();
  const rng = new Rng(options.seed);
  const ids: number[] = [];
  const stops = options.stop.filter((s) => s.length > 0);
  const limit = Math.min(options.maxTokens, model.config.contextLength - cache.length);
  while (ids.length < limit) {
    if (options.signal?.aborted) throw new CancelledError();
    const next = pickToken(logits, options.temperature, options.topP, rng);
    if (next === tok.eos) return { text: tok.decode(ids), finishReason: 'stop', completionTokens: ids.length + 1 };
    ids.push(next);
    if (stops.length > 0) {
      const text = tok.decode(ids);
      let cut = -1;
      let by = '';
      for (const s of stops) {
        const at = text.indexOf(s);
        if (at >= 0 && (cut < 0 || at < cut)) {
          cut = at;
          by = s;
        }
      }
      if (cut >= 0)
        return { text: text.slice(0, cut), finishReason: 'stop', completionTokens: ids.length, stoppedBy: by };
    }
    if (ids.length < limit) model.step(next, cache, logits);
  }
  return { text: tok.decode(ids), finishReason: 'length', completionTokens: ids.length };
}
