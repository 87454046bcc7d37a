import { QUEUES, outboxJob } from '../queues';
import {
  INSERT_OUTBOX_SQL,
  insertOutbox,
  outboxWakeChannel,
  ownOutboxWakeChannel,
  jobEffect,
  outboxColumns,
  socketEffect,
  wokenOutboxIds,
  type OutboxEffect,
} from './outbox';

const view = {
  tenantId: 't',
  conversationId: 'c',
  customerName: 'n',
  attentionLineId: null,
  agentId: null,
  status: 's',
  rolling: -1,
  lastMessageAt: 0,
};

describe('typed outbox writer (shared by the API and the worker)', () => {
  it('inserts the rows of outboxColumns in one statement, in order, and answers their ids as text', async () => {
    const calls: { sql: string; params: unknown[] }[] = [];
    const runner = {
      query: async (sql: string, params: unknown[]) => {
        calls.push({ sql, params });
        return [{ id: 7 }, { id: 8 }];
      },
    };
    const effects: OutboxEffect[] = [
      socketEffect({ namespace: 'staff', rooms: ['tenant:t'], event: 'sentiment.alert', data: view }),
      jobEffect(
        outboxJob(
          QUEUES.sentiment,
          { name: 'score', data: { messageId: 'm', tenantId: 't', conversationId: 'c' } },
          { jobId: 'sentiment.m' },
        ),
      ),
    ];
    const written = await insertOutbox(runner, effects);
    expect(calls).toEqual([{ sql: INSERT_OUTBOX_SQL, params: [written.topics, written.payloads] }]);
    expect(written).toEqual({ ids: ['7', '8'], ...outboxColumns(effects) });
    expect(written.topics).toEqual(['socket', 'job']);
    expect(JSON.parse(written.payloads[1])).toEqual({
      queue: 'message-sentiment',
      name: 'score',
      data: { messageId: 'm', tenantId: 't', conversationId: 'c' },
      jobId: 'sentiment.m',
    });
  });

  it('a process without a relay notifies the written ids in the same transaction, 400 at most per notification', async () => {
    const calls: { sql: string; params: unknown[] }[] = [];
    const ids = Array.from({ length: 401 }, (_, n) => ({ id: n + 1 }));
    const runner = {
      query: async (sql: string, params: unknown[]) => {
        calls.push({ sql, params });
        return sql === INSERT_OUTBOX_SQL ? ids : [];
      },
    };
    const effects = ids.map(() =>
      jobEffect(outboxJob(QUEUES.sentiment, { name: 'score', data: { messageId: 'm', tenantId: 't', conversationId: 'c' } })),
    );
    const written = await insertOutbox(runner, effects, { wakeRelay: true });
    expect(calls.map((call) => call.sql)).toEqual([INSERT_OUTBOX_SQL, 'SELECT pg_notify($1, $2)', 'SELECT pg_notify($1, $2)']);
    const notified = calls.slice(1).map((call) => call.params);
    expect(notified.map(([channel]) => channel)).toEqual([ownOutboxWakeChannel(), ownOutboxWakeChannel()]);
    expect(notified.flatMap(([, payload]) => wokenOutboxIds(payload as string))).toEqual(written.ids);
    expect(wokenOutboxIds(notified[1][1] as string)).toEqual(['401']);
  });

  it('names one wake channel per deployment (its QUEUE_PREFIX), a plain identifier whatever the prefix', () => {
    const channel = outboxWakeChannel('centralita-test-1-browser-messaging');
    expect(channel).toMatch(/^[a-z0-9_]{1,63}$/);
    expect(outboxWakeChannel('centralita-test-1-browser')).not.toBe(channel);
    expect(ownOutboxWakeChannel({ QUEUE_PREFIX: ' centralita-test-1-browser-messaging ' })).toBe(channel);
    expect(ownOutboxWakeChannel({})).toBe(outboxWakeChannel('centralita'));
  });

  it('reads only ids out of a wake-up payload', () => {
    expect(wokenOutboxIds('12,13')).toEqual(['12', '13']);
    expect(wokenOutboxIds('1,x,;DROP,,2 ,99999999999999999999')).toEqual(['1']);
    expect(wokenOutboxIds(undefined)).toEqual([]);
  });

  it('writes nothing for no effects', async () => {
    const runner = { query: jest.fn() };
    expect(await insertOutbox(runner, [])).toEqual({ ids: [], topics: [], payloads: [] });
    expect(runner.query).not.toHaveBeenCalled();
  });

  it('types a push by its event map, at compile time', () => {
    // @ts-expect-error not an event of the staff map
    socketEffect({ namespace: 'staff', rooms: [], event: 'sentiment.alerts', data: view });
    // @ts-expect-error `queue.position` is pushed to visitors only
    socketEffect({ namespace: 'staff', rooms: [], event: 'queue.position', data: view });
    // @ts-expect-error a sentiment alert carries a SentimentAlertView
    socketEffect({ namespace: 'staff', rooms: [], event: 'sentiment.alert', data: { tenantId: 't' } });
    // @ts-expect-error `batch` is how the relay packs pushes, never an effect
    socketEffect({ namespace: 'staff', rooms: [], event: 'batch', data: [] });
    expect(socketEffect().payload).toEqual({ emits: [] });
  });
});
