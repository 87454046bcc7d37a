import { NaturalBatcher } from './natural-batcher';

/** A run whose batches the test settles by hand, recording what each batch held. */
function controlledRun() {
  const batches: { items: string[]; settle: (error?: Error) => void }[] = [];
  const run = (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push({ items, settle: (error) => (error ? reject(error) : resolve(items.map((item) => `done:${item}`))) });
    });
  return { batches, run };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe(NaturalBatcher.name, () => {
  it('sends an item at once while a slot is free, and gathers the ones that arrive meanwhile', async () => {
    const { batches, run } = controlledRun();
    const batcher = new NaturalBatcher<string, string>({ maxInFlight: 1, maxBatch: 10, run });
    const first = batcher.submit('a');
    expect(batches.map((batch) => batch.items)).toEqual([['a']]);
    const rest = ['b', 'c', 'd'].map((item) => batcher.submit(item));
    expect(batches).toHaveLength(1);
    batches[0].settle();
    await expect(first).resolves.toBe('done:a');
    await flush();
    expect(batches.map((batch) => batch.items)).toEqual([['a'], ['b', 'c', 'd']]);
    batches[1].settle();
    await expect(Promise.all(rest)).resolves.toEqual(['done:b', 'done:c', 'done:d']);
  });

  it('runs up to maxInFlight batches at once and caps a batch at maxBatch', async () => {
    const { batches, run } = controlledRun();
    const batcher = new NaturalBatcher<string, string>({ maxInFlight: 2, maxBatch: 2, run });
    const all = ['a', 'b', 'c', 'd', 'e'].map((item) => batcher.submit(item));
    expect(batches.map((batch) => batch.items)).toEqual([['a'], ['b']]);
    batches[0].settle();
    await flush();
    expect(batches.map((batch) => batch.items)).toEqual([['a'], ['b'], ['c', 'd']]);
    batches[1].settle();
    await flush();
    expect(batches.map((batch) => batch.items)).toEqual([['a'], ['b'], ['c', 'd'], ['e']]);
    batches[2].settle();
    batches[3].settle();
    await expect(Promise.all(all)).resolves.toEqual(['done:a', 'done:b', 'done:c', 'done:d', 'done:e']);
  });

  it('never puts two items of one key in a batch, and keeps a key’s items in order', async () => {
    const { batches, run } = controlledRun();
    const batcher = new NaturalBatcher<string, string>({ maxInFlight: 1, maxBatch: 10, keyOf: (item) => item[0], run });
    const all = ['x0', 'a1', 'b1', 'a2', 'c1', 'a3', 'b2'].map((item) => batcher.submit(item));
    batches[0].settle();
    await flush();
    expect(batches[1].items).toEqual(['a1', 'b1', 'c1']);
    batches[1].settle();
    await flush();
    expect(batches[2].items).toEqual(['a2', 'b2']);
    batches[2].settle();
    await flush();
    expect(batches[3].items).toEqual(['a3']);
    batches[3].settle();
    await expect(Promise.all(all)).resolves.toHaveLength(7);
  });

  it('runs a failed batch again item by item, so only the bad item fails', async () => {
    const calls: string[][] = [];
    const batcher = new NaturalBatcher<string, string>({
      maxInFlight: 1,
      maxBatch: 10,
      run: async (items) => {
        calls.push(items);
        if (items.includes('bad')) throw new Error(`refused ${items.join(',')}`);
        return items.map((item) => `done:${item}`);
      },
    });
    const first = batcher.submit('first');
    const results = ['a', 'bad', 'b'].map((item) => batcher.submit(item).catch((error: Error) => error.message));
    await expect(first).resolves.toBe('done:first');
    await expect(Promise.all(results)).resolves.toEqual(['done:a', 'refused bad', 'done:b']);
    expect(calls).toEqual([['first'], ['a', 'bad', 'b'], ['a'], ['bad'], ['b']]);
  });

  describe('with lingerMs', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('holds a batch that is not full for lingerMs, sends a full one at once, and never holds an item longer', async () => {
      const { batches, run } = controlledRun();
      const batcher = new NaturalBatcher<string, string>({ maxInFlight: 1, maxBatch: 3, lingerMs: 20, run });
      const early = ['a', 'b'].map((item) => batcher.submit(item));
      jest.advanceTimersByTime(19);
      expect(batches).toHaveLength(0);
      jest.advanceTimersByTime(1);
      expect(batches.map((batch) => batch.items)).toEqual([['a', 'b']]);
      batches[0].settle();
      await expect(Promise.all(early)).resolves.toEqual(['done:a', 'done:b']);

      // Full: no wait.
      const full = ['c', 'd', 'e'].map((item) => batcher.submit(item));
      expect(batches.map((batch) => batch.items)).toEqual([
        ['a', 'b'],
        ['c', 'd', 'e'],
      ]);
      batches[1].settle();
      await expect(Promise.all(full)).resolves.toHaveLength(3);

      // One alone still goes after lingerMs.
      const alone = batcher.submit('f');
      jest.advanceTimersByTime(20);
      expect(batches[2].items).toEqual(['f']);
      batches[2].settle();
      await expect(alone).resolves.toBe('done:f');
    });
  });
});
