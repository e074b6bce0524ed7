// Sampling models: providers behind one interface, with profiles, limits and retries.
export * from './types';
export { OpenAIProvider, splitThinking, type OpenAIProviderOptions } from './openai';
export { Limiter, limiterFor } from './limiter';
export { DEFAULT_RETRY, backoffDelay, parseRetryAfter, sleep, withRetry, type RetryOptions, type RetryPolicy } from './retry';
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
import { SamplingError, type ModelProfile, type Provider } from './types';

/** The provider for a profile (only OpenAI-compatible endpoints so far; `builtin:` comes later). */
export function createProvider(profile: ModelProfile, options: OpenAIProviderOptions = {}): Provider {
  if (profile.baseUrl.startsWith('builtin:')) throw new SamplingError(`${profile.name}: built-in models are not available in this version`, 'bad-request');
  return new OpenAIProvider(profile, options);
}
