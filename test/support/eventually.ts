/**
 * Retries an assertion until it passes or the deadline expires: queue and socket effects are
 * asynchronous, and a fixed sleep is either flaky or slow.
 */
export async function eventually<T>(assertion: () => T | Promise<T>, { timeoutMs = 10_000, intervalMs = 25 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      return await assertion();
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
  throw lastError;
}
