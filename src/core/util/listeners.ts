// Signals shared by many waiters: a run's one abort signal is listened to by every request,
// environment call and case it starts.
import { getMaxListeners, setMaxListeners } from 'node:events';

/**
 * A run shares one signal among all its requests, each of which listens to it while it waits or
 * is in flight: thousands of listeners are expected there, not a leak to warn about.
 */
export function allowManyListeners(signal: AbortSignal): void {
  if (getMaxListeners(signal) < 100_000) setMaxListeners(100_000, signal);
}
