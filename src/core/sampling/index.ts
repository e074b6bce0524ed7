// Sampling models: providers behind one interface, with profiles, limits and retries.
export * from './types';
export { OpenAIProvider, splitThinking, type OpenAIProviderOptions } from './openai';
export { Limiter, limiterFor } from './limiter';
export { DEFAULT_RETRY, backoffDelay, parseRetryAfter, withRetry, type RetryOptions, type RetryPolicy } from './retry';
export {
  DEFAULT_CONCURRENCY,
  DEFAULT_TIMEOUT_MS,
  ProfileError,
  apiKeyFor,
  describeProfile,
  expandHeaders,
  fromEnvironment,
  profileFromEntry,
  profileIdentity,
  redact,
  resolveProfile,
  safeUrl,
  type ProfileSources,
  type SecretLookup,
} from './profiles';
export { renderPrompt, templateProblems, TEMPLATE_VARIABLES } from './template';
export { SseParser, sseEvents } from './sse';

import { OpenAIProvider, type OpenAIProviderOptions } from './openai';
import { BUILTIN_MODELS, BuiltinProvider, DEFAULT_BUILTIN_MODEL } from './builtin/provider';
import { SamplingError, type ModelProfile, type Provider } from './types';

/** The provider for a profile: OpenAI-compatible endpoints, or `builtin:<model>` (the in-process demo models). */
export function createProvider(profile: ModelProfile, options: OpenAIProviderOptions = {}): Provider {
  if (profile.baseUrl.startsWith('builtin:')) {
    const model = profile.baseUrl.slice('builtin:'.length) || profile.model || DEFAULT_BUILTIN_MODEL;
    if (!(model in BUILTIN_MODELS))
      throw new SamplingError(
        `${profile.name}: built-in model ${model} does not exist (available: ${Object.keys(BUILTIN_MODELS).join(', ')})`,
        'not-found',
      );
    return new BuiltinProvider({ model, ...(profile.seed !== undefined ? { seed: profile.seed } : {}) });
  }
  return new OpenAIProvider(profile, options);
}
