import type { DataSource } from 'typeorm';
import type { CampaignHostService } from './campaign-host.service';
import { CampaignTimerSweeper } from './campaign-timer-sweeper.service';
import type { OutboundTransactions } from './outbound-transaction.service';

/** A campaign host over an in-memory table of deadlines: `fired` records what the sweeper fired. */
function fakes(deadlines: Map<string, number>, options: { heldElsewhere?: Set<string> } = {}) {
  const fired: string[] = [];
  const campaigns = {
    dueTimers: (_manager: unknown, now: number, limit: number) =>
      Promise.resolve(
        [...deadlines]
          .filter(([, at]) => at <= now)
          .sort((a, b) => a[1] - b[1])
          .slice(0, limit)
          .map(([id]) => id),
      ),
    fireTimer: (id: string, now: number) => {
      if (options.heldElsewhere?.has(id) || (deadlines.get(id) ?? Infinity) > now) return Promise.resolve(false);
      deadlines.delete(id);
      fired.push(id);
      return Promise.resolve(true);
    },
  } as unknown as CampaignHostService;
  let deadlineListener: (at: number) => void = () => undefined;
  const tx = { onDeadline: (listener: (at: number) => void) => (deadlineListener = listener) } as unknown as OutboundTransactions;
  const dataSource = { isInitialized: true, manager: {} } as unknown as DataSource;
  const sweeper = new CampaignTimerSweeper(dataSource, campaigns, tx);
  return { sweeper, fired, wrote: (at: number) => deadlineListener(at) };
}

describe(CampaignTimerSweeper.name, () => {
  afterEach(() => jest.useRealTimers());

  it('fires every due timer, oldest first, and leaves the future ones', async () => {
    const now = Date.now();
    const { sweeper, fired } = fakes(
      new Map([
        ['late', now - 10],
        ['later', now - 20],
        ['future', now + 60_000],
      ]),
    );
    await sweeper.sweep();
    expect(fired).toEqual(['later', 'late']);
  });

  it('keeps sweeping while batches come back full, and stops when nothing it sees can be fired here', async () => {
    const now = Date.now();
    const due = new Map(Array.from({ length: 250 }, (_, i) => [`c${i}`, now - 1000 + i] as [string, number]));
    const { sweeper, fired } = fakes(due);
    await sweeper.sweep();
    expect(fired).toHaveLength(250);

    const held = new Map(Array.from({ length: 100 }, (_, i) => [`h${i}`, now - 1000] as [string, number]));
    const blocked = fakes(held, { heldElsewhere: new Set(held.keys()) });
    await blocked.sweeper.sweep();
    expect(blocked.fired).toEqual([]);
  });

  it('wakes at a deadline this process wrote, without waiting for the poll', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const deadlines = new Map<string, number>();
    const { sweeper, fired, wrote } = fakes(deadlines);
    deadlines.set('soon', 1_000_250);
    wrote(1_000_250);
    await jest.advanceTimersByTimeAsync(249);
    expect(fired).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(fired).toEqual(['soon']);
    await sweeper.onApplicationShutdown();
  });
});
