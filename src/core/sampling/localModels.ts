import { safeUrl } from './profiles';
import { DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_MS } from './profiles';
import type { ModelProfile } from './types';

/** Where local OpenAI-compatible servers usually listen. */
export const LOCAL_SERVERS: readonly { readonly name: string; readonly baseUrl: string }[] = [
  { name: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
  { name: 'vllm', baseUrl: 'http://127.0.0.1:8000/v1' },
  { name: 'llama.cpp', baseUrl: 'http://127.0.0.1:8080/v1' },
  { name: 'lmstudio', baseUrl: 'http://127.0.0.1:1234/v1' },
];

/** The demo model that ships with vtask: a tiny arithmetic model that runs in-process. */
export const BUILTIN_PROFILE: ModelProfile = {
  name: 'builtin',
  baseUrl: 'builtin:arith-tiny',
  model: 'arith-tiny',
  endpoint: 'chat',
  concurrency: 1,
  timeoutMs: DEFAULT_TIMEOUT_MS,
};

/**
 * The models of local servers that answer `/v1/models` within `timeoutMs`, in the order of
 * `LOCAL_SERVERS`. Servers that do not answer are skipped silently: this is a probe.
 * `VTASK_NO_LOCAL_DISCOVERY=1` turns the probe off, so that a run (a test, CI) does not depend on
 * whatever model server happens to run on the machine.
 */
export async function findLocalModels(timeoutMs = 400, servers = LOCAL_SERVERS): Promise<ModelProfile[]> {
  if (process.env.VTASK_NO_LOCAL_DISCOVERY === '1') return [];
  const found = await Promise.all(
    servers.map(async (s) => {
      try {
        const res = await fetch(`${s.baseUrl}/models`, { signal: AbortSignal.timeout(timeoutMs) });
        if (!res.ok) return [];
        const body = (await res.json()) as { data?: { id?: unknown }[] };
        return (body.data ?? [])
          .map((m) => (typeof m.id === 'string' ? m.id : undefined))
          .filter((id): id is string => id !== undefined)
          .map((id): ModelProfile => ({
            name: `${s.name}:${id}`,
            baseUrl: s.baseUrl,
            model: id,
            endpoint: 'chat',
            concurrency: DEFAULT_CONCURRENCY,
            timeoutMs: DEFAULT_TIMEOUT_MS,
          }));
      } catch {
        return [];
      }
    }),
  );
  return found.flat();
}

/** The model to use when nothing is configured: a local server's first model, else the built-in one. */
export async function fallbackProfile(timeoutMs = 400): Promise<{ profile: ModelProfile; why: string }> {
  const local = await findLocalModels(timeoutMs);
  const first = local[0];
  if (first)
    return {
      profile: first,
      why: `no model configured: using ${first.model} at ${safeUrl(first.baseUrl)} (a local server)`,
    };
  return {
    profile: BUILTIN_PROFILE,
    why: 'no model configured and no local server answers: using the built-in demo model builtin:arith-tiny (arithmetic only)',
  };
}
