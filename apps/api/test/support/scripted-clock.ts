/**
 * For suites that script a day with the clock set by the test: only `Date` is faked, so every
 * transition is stamped with the scripted instant while timers, sockets, PostgreSQL and Redis run
 * for real. Move the clock with `jest.setSystemTime`.
 */
export function fakeDateOnly(now: number): void {
  jest.useFakeTimers({
    now,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
}

/** Polls with the real clock: `Date` is frozen by the script. */
export async function eventuallyRealClock<T>(assertion: () => T | Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (performance.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
  }
}
