import type { DataSource, EntityManager } from 'typeorm';
import type { RealtimeService } from '../realtime/realtime.service';
import { OutboxRelay } from './outbox-relay.service';
import type { QueueRegistry } from './queue-registry.service';
import { loadRealtimeConfig } from './realtime-config';

/** The rows another process announced: claimed by id, many announcements in one claim. */
describe('OutboxRelay.wake', () => {
  let claims: string[][];
  let emitted: string[];
  let relay: OutboxRelay;

  beforeEach(() => {
    claims = [];
    emitted = [];
    const manager = {
      query: async (sql: string, params: unknown[]) => {
        if (!sql.includes('FOR UPDATE SKIP LOCKED')) return [];
        const ids = params[0] as string[];
        claims.push(ids);
        // Every announced row is still there, a push each.
        return ids.map((id) => ({
          id,
          topic: 'socket',
          payload: { emits: [{ namespace: 'staff', rooms: ['tenant:t'], event: id, data: {} }] },
        }));
      },
    } as unknown as EntityManager;
    const dataSource = {
      isInitialized: true,
      manager,
      transaction: <T>(work: (manager: EntityManager) => Promise<T>) => work(manager),
    } as unknown as DataSource;
    const realtime = { emit: (_namespace: string, _rooms: string[], event: string) => emitted.push(event) } as unknown as RealtimeService;
    relay = new OutboxRelay(dataSource, {} as QueueRegistry, realtime, loadRealtimeConfig({}));
  });

  it('claims the announcements that arrive while it is busy together, in the order announced', async () => {
    relay.wake(['1']);
    relay.wake(['2', '3']);
    relay.wake(['4']);
    await relay.idle();
    expect(claims).toEqual([['1', '2', '3', '4']]);
    expect(emitted).toEqual(['1', '2', '3', '4']);
  });

  it('claims at most 500 rows at a time, the rest in the next claim', async () => {
    const ids = Array.from({ length: 501 }, (_, n) => String(n + 1));
    relay.wake(ids);
    await relay.idle();
    expect(claims.map((claim) => claim.length)).toEqual([500, 1]);
    expect(claims.flat()).toEqual(ids);
  });

  it('claims again for what is announced after a claim started', async () => {
    relay.wake(['1']);
    await relay.idle();
    relay.wake(['2']);
    await relay.idle();
    expect(claims).toEqual([['1'], ['2']]);
  });
});
