// Long loops in a process that serves others (the extension host) are cut into slices: once a
// slice's time is used up, the loop waits one turn of the event loop, so that messages, events
// and other extensions run between slices. The work is the same; only when it runs changes.

/** How long a slice runs by default: well under a frame, so nothing waits for long. */
export const SLICE_MS = 8;

export class TimeSlices {
  private started = performance.now();

  constructor(
    private readonly ms = SLICE_MS,
    private readonly signal?: AbortSignal,
  ) {}

  /** True when this slice's time is used up: the loop then awaits `next()` (checked per item, awaited rarely). */
  get due(): boolean {
    return performance.now() - this.started >= this.ms;
  }

  /** Waits one turn of the event loop; throws the signal's reason when it was aborted meanwhile. */
  async next(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.signal?.throwIfAborted();
    this.started = performance.now();
  }
}
