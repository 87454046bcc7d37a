import { loadQueuePublishInterval, QueuePublishThrottle } from './queue-publisher';

describe('QueuePublishThrottle', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  /** A push that records when it started and what it read, and finishes when told to. */
  function recorder() {
    const starts: { key: string; at: number; state: number }[] = [];
    const finish: (() => void)[] = [];
    let state = 0;
    const push = (key: string) =>
      new Promise<void>((resolve) => {
        starts.push({ key, at: Date.now(), state });
        finish.push(resolve);
      });
    return {
      starts,
      push,
      change: () => ++state,
      finishAll: async () => {
        for (const done of finish.splice(0)) done();
        // Let the throttle's continuation after the push run.
        await Promise.resolve();
        await Promise.resolve();
      },
    };
  }

  it('pushes at once, folds a burst into one trailing push per interval, and the last push reads the last state', async () => {
    const starts: { at: number; state: number }[] = [];
    let state = 0;
    const throttle = new QueuePublishThrottle(
      1000,
      async () => void starts.push({ at: Date.now(), state }),
      () => undefined,
    );
    // A burst of 2.5 s: the line changes and asks for a push every 100 ms.
    for (let at = 0; at <= 2500; at += 100) {
      state++;
      throttle.request('line');
      await jest.advanceTimersByTimeAsync(at === 2500 ? 0 : 100);
    }
    await jest.advanceTimersByTimeAsync(2000);

    // Leading push at 0, one per interval while it lasts, the trailing one: ceil(2500 / 1000) + 1.
    expect(starts.map((start) => start.at)).toEqual([0, 1000, 2000, 3000]);
    expect(starts.at(-1)!.state).toBe(26);
    expect(throttle.pending).toBe(0);
  });

  it('never runs two pushes of a key at once: a push slower than the interval is followed right after it ends', async () => {
    const r = recorder();
    const throttle = new QueuePublishThrottle(100, r.push, () => undefined);
    throttle.request('line');
    await jest.advanceTimersByTimeAsync(50);
    r.change();
    throttle.request('line');
    await jest.advanceTimersByTimeAsync(500);
    expect(r.starts).toHaveLength(1);
    await r.finishAll();
    await jest.advanceTimersByTimeAsync(0);
    expect(r.starts.map((start) => [start.at, start.state])).toEqual([
      [0, 0],
      [550, 1],
    ]);
    await r.finishAll();
    await jest.advanceTimersByTimeAsync(100);
    expect(r.starts).toHaveLength(2);
    expect(throttle.pending).toBe(0);
  });

  it('paces each key on its own, pushes a quiet key at once again, logs failures and pushes what waits on shutdown', async () => {
    const pushed: string[] = [];
    const errors: string[] = [];
    const throttle = new QueuePublishThrottle(
      200,
      async (key) => {
        pushed.push(`${key}@${Date.now()}`);
        if (key === 'bad') throw new Error('boom');
      },
      (key, error) => errors.push(`${key}: ${error.message}`),
    );
    throttle.request('a');
    throttle.request('b');
    throttle.request('bad');
    throttle.request('a');
    await jest.advanceTimersByTimeAsync(0);
    expect(pushed).toEqual(['a@0', 'b@0', 'bad@0']);
    expect(errors).toEqual(['bad: boom']);
    await jest.advanceTimersByTimeAsync(200);
    expect(pushed).toEqual(['a@0', 'b@0', 'bad@0', 'a@200']);
    // Quiet for an interval: the next request is a leading push again.
    await jest.advanceTimersByTimeAsync(1000);
    throttle.request('b');
    await jest.advanceTimersByTimeAsync(0);
    expect(pushed.at(-1)).toBe('b@1200');
    // Asked for again inside the interval, then the process shuts down: the trailing push goes at
    // once instead of being dropped; requests after the shutdown are not pushed.
    throttle.request('b');
    await throttle.flush();
    expect(pushed.at(-1)).toBe('b@1200');
    expect(pushed.filter((entry) => entry.startsWith('b@'))).toEqual(['b@0', 'b@1200', 'b@1200']);
    throttle.request('c');
    await jest.advanceTimersByTimeAsync(1000);
    expect(pushed.filter((entry) => entry.startsWith('c@'))).toEqual([]);
    expect(throttle.pending).toBe(0);
  });

  it('on shutdown pushes once more after a running push that was asked for again, and waits for it', async () => {
    const pushes = recorder();
    const throttle = new QueuePublishThrottle(1000, pushes.push, () => undefined);
    throttle.request('line');
    pushes.change();
    throttle.request('line');
    const flushed = throttle.flush();
    let done = false;
    void flushed.then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    await pushes.finishAll();
    // The trailing push started right after the running one ended, and read the last state.
    expect(pushes.starts).toEqual([
      { key: 'line', at: 0, state: 0 },
      { key: 'line', at: 0, state: 1 },
    ]);
    await pushes.finishAll();
    await flushed;
    expect(done).toBe(true);
  });

  it('does not hold the shutdown for a push that hangs', async () => {
    const throttle = new QueuePublishThrottle(
      1000,
      () => new Promise<void>(() => undefined),
      () => undefined,
    );
    throttle.request('line');
    const flushed = throttle.flush(300);
    await jest.advanceTimersByTimeAsync(300);
    await expect(flushed).resolves.toBeUndefined();
  });
});

describe('loadQueuePublishInterval', () => {
  it('defaults to 1000 ms, takes 0 (no pacing) and refuses anything but a whole number', () => {
    expect(loadQueuePublishInterval({})).toBe(1000);
    expect(loadQueuePublishInterval({ QUEUE_PUBLISH_INTERVAL_MS: '0' })).toBe(0);
    expect(loadQueuePublishInterval({ QUEUE_PUBLISH_INTERVAL_MS: '250' })).toBe(250);
    expect(() => loadQueuePublishInterval({ QUEUE_PUBLISH_INTERVAL_MS: '-1' })).toThrow(/QUEUE_PUBLISH_INTERVAL_MS/);
    expect(() => loadQueuePublishInterval({ QUEUE_PUBLISH_INTERVAL_MS: 'soon' })).toThrow(/QUEUE_PUBLISH_INTERVAL_MS/);
  });
});
