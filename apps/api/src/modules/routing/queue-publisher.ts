/** Injection token of the least time between two queue pushes of one line in one process. */
export const QUEUE_PUBLISH_INTERVAL_MS = Symbol('QUEUE_PUBLISH_INTERVAL_MS');

/** QUEUE_PUBLISH_INTERVAL_MS from the environment (default 1000; 0 = push as soon as the previous push is done). */
export function loadQueuePublishInterval(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.QUEUE_PUBLISH_INTERVAL_MS;
  if (raw === undefined || raw === '') return 1000;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`Invalid configuration:\n  - QUEUE_PUBLISH_INTERVAL_MS must be a whole number 0 or more, got "${raw}"`);
  return value;
}

interface KeyState {
  /** Asked for since the last push started: one more push must start after this. */
  dirty: boolean;
  startedAt: number;
  timer: NodeJS.Timeout | null;
  /** The push running, if one is. */
  running: Promise<void> | null;
}

/** How long a shutdown waits for the last pushes (a push that hangs must not hold the process). */
export const QUEUE_PUBLISH_FLUSH_MS = 5000;

/**
 * Leading-and-trailing throttle of pushes, per key (a line). The first request pushes at once;
 * requests while that push runs or less than `intervalMs` after it started only mark the key
 * dirty, and one trailing push starts when the interval is over (or when the running push ends, if
 * later). So a burst of requests lasting D ms costs at most ceil(D / interval) + 1 pushes, and
 * every request is followed by a push that starts after it: the last push reads the last state.
 *
 * Each process throttles on its own; what keeps several processes' pushes in order is the view
 * version each push reads (see QueueViews.withViewVersion), not this.
 */
export class QueuePublishThrottle {
  private readonly keys = new Map<string, KeyState>();
  private stopped = false;

  constructor(
    private readonly intervalMs: number,
    private readonly push: (key: string) => Promise<void>,
    private readonly onError: (key: string, error: Error) => void,
  ) {}

  request(key: string): void {
    if (this.stopped) return;
    const state = this.keys.get(key);
    if (state) {
      state.dirty = true;
      return;
    }
    const fresh: KeyState = { dirty: false, startedAt: 0, timer: null, running: null };
    this.keys.set(key, fresh);
    void this.run(key, fresh);
  }

  /** Keys with a push running or an interval not over yet (for tests and shutdown). */
  get pending(): number {
    return this.keys.size;
  }

  /**
   * The process is shutting down: the trailing pushes still waiting for their interval start now,
   * and the pushes running are waited for (at most `withinMs`), so a change made just before the
   * shutdown still reaches the screens — nothing else would push it until the line changes again.
   * Requests from now on are dropped.
   */
  async flush(withinMs = QUEUE_PUBLISH_FLUSH_MS): Promise<void> {
    this.stopped = true;
    const last: Promise<void>[] = [];
    for (const [key, state] of this.keys) {
      if (state.timer) clearTimeout(state.timer);
      state.timer = null;
      const running = state.running ?? Promise.resolve();
      // A request made while the push ran marked the key dirty: one more push, after it.
      last.push(running.then(() => (state.dirty ? this.pushOnce(key, state) : undefined)));
    }
    this.keys.clear();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, withinMs);
      timer.unref();
    });
    await Promise.race([Promise.all(last), deadline]);
    clearTimeout(timer);
  }

  private async run(key: string, state: KeyState): Promise<void> {
    await this.pushOnce(key, state);
    if (this.stopped || this.keys.get(key) !== state) return;
    // The key stays held until the interval is over, so requests meanwhile wait for the trailing push.
    const wait = Math.max(0, state.startedAt + this.intervalMs - Date.now());
    state.timer = setTimeout(() => {
      state.timer = null;
      if (this.stopped || this.keys.get(key) !== state) return;
      if (state.dirty) void this.run(key, state);
      else this.keys.delete(key);
    }, wait);
    state.timer.unref();
  }

  /** One push of the key; a failure is reported, never thrown. */
  private async pushOnce(key: string, state: KeyState): Promise<void> {
    state.dirty = false;
    state.startedAt = Date.now();
    let pushed: Promise<void>;
    try {
      pushed = this.push(key);
    } catch (error) {
      pushed = Promise.reject(error as Error);
    }
    const running = pushed.catch((error: Error) => this.onError(key, error));
    state.running = running;
    await running;
    if (state.running === running) state.running = null;
  }
}
