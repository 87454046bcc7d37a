import { QUEUES, outboxJob } from '../queues';
import { INSERT_OUTBOX_SQL, insertOutbox, jobEffect, outboxColumns, socketEffect, type OutboxEffect } from './outbox';

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
