import { SentimentBatcher } from './sentiment-batcher';
import type { ScoreOutcome } from './sentiment-store';

/** A score function whose calls finish when the test says: what each call was given, and its finish. */
function controlledScore() {
  const calls: { ids: string[]; finish: (error?: Error) => void }[] = [];
  const score = (ids: string[]) =>
    new Promise<ScoreOutcome[]>((resolve, reject) => {
      calls.push({
        ids,
        finish: (error) => (error ? reject(error) : resolve(ids.map((id) => (id.startsWith('x') ? 'skipped' : 'scored')))),
      });
    });
  return { calls, score };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe(SentimentBatcher.name, () => {
  it('scores the first request at once and those that arrive meanwhile together in the next batch, at most maxBatch', async () => {
    const { calls, score } = controlledScore();
    const batcher = new SentimentBatcher(score, 3);
    const first = batcher.submit('a');
    const rest = ['b', 'c', 'x', 'e'].map((id) => batcher.submit(id));
    await settle();
    expect(calls.map((call) => call.ids)).toEqual([['a']]);

    calls[0].finish();
    await expect(first).resolves.toBe('scored');
    await settle();
    expect(calls.map((call) => call.ids)).toEqual([['a'], ['b', 'c', 'x']]);
    calls[1].finish();
    await settle();
    expect(calls.map((call) => call.ids)).toEqual([['a'], ['b', 'c', 'x'], ['e']]);
    calls[2].finish();
    await expect(Promise.all(rest)).resolves.toEqual(['scored', 'scored', 'skipped', 'scored']);
  });

  it('scores a failed batch again one message at a time, so only the bad message fails', async () => {
    const calls: string[][] = [];
    const batcher = new SentimentBatcher(async (ids) => {
      calls.push(ids);
      if (ids.includes('bad')) throw new Error('bad message');
      return ids.map(() => 'scored' as const);
    }, 10);
    const blocker = batcher.submit('first');
    const outcomes = ['ok-1', 'bad', 'ok-2'].map((id) => batcher.submit(id).catch((error: Error) => error.message));
    await blocker;
    await expect(Promise.all(outcomes)).resolves.toEqual(['scored', 'bad message', 'scored']);
    expect(calls).toEqual([['first'], ['ok-1', 'bad', 'ok-2'], ['ok-1'], ['bad'], ['ok-2']]);
  });
});
