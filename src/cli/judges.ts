import { createProvider } from '../core/sampling';
import { resolveProfile } from '../core/sampling/profiles';
import type { Provider } from '../core/sampling/types';
import type { VerifyContext } from '../core/verifiers/verdict';

/**
 * Where `judge` verifiers get their model in the CLI: the judge's own `model:` profile, else
 * the task's, resolved like `vtask run` resolves models. Undefined when nothing resolves, so
 * judge cases are skipped rather than failed.
 */
export function judgeProviders(
  models: Record<string, unknown>,
  flags: { baseUrl?: string; model?: string },
  taskModel: () => string | undefined,
): NonNullable<VerifyContext['judge']> {
  const made = new Map<string, Provider>();
  return (name) => {
    try {
      const profile = resolveProfile({
        name: name ?? taskModel(),
        models,
        baseUrl: name ? undefined : flags.baseUrl,
        model: name ? undefined : flags.model,
      });
      const key = `${profile.baseUrl}\0${profile.model}\0${profile.name}`;
      let p = made.get(key);
      if (!p) made.set(key, (p = createProvider(profile, { splitThinkTags: true })));
      return p;
    } catch {
      return undefined;
    }
  };
}
