import { randomUUID } from 'node:crypto';
import { QUEUES } from '@centralita/contracts';
import { Queue } from 'bullmq';
import { eventually } from '../../../test/support/eventually';
import { MachineHostService } from '../src/modules/machine-host/machine-host.service';
import { writeOutbox } from '../src/modules/machine-host/outbox';
import { RoutingService } from '../src/modules/routing/routing.service';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Routing requests are jobs of the API's own queue: the relay runs them in the process that
 * committed them instead of a round trip through Redis, marks the row only once the run is done,
 * and hands a run that failed to the queue, where BullMQ retries it.
 */
describe('routing requests run where they were committed', () => {
  const prefix = `${process.env.QUEUE_PREFIX}-local-routing`;
  let t: TestApp;
  let queue: Queue;
  const savedPoll = process.env.OUTBOX_POLL_MS;

  beforeAll(async () => {
    // Its own queues and database; no poller: only the relay's local path delivers what it commits.
    process.env.OUTBOX_POLL_MS = '3600000';
    t = await startTestApp({ queuePrefix: prefix }, { ownDatabase: true });
    queue = new Queue(QUEUES.routing, { connection: { url: process.env.REDIS_URL! }, prefix });
  });
  afterAll(async () => {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await t.close();
    if (savedPoll === undefined) delete process.env.OUTBOX_POLL_MS;
    else process.env.OUTBOX_POLL_MS = savedPoll;
  });

  async function commitRequeue(conversationIds: string[]): Promise<string> {
    const host = t.app.get(MachineHostService);
    const [id] = await host.transaction(async (manager, outbox) => {
      const ids = await writeOutbox(manager, [
        { topic: 'job', payload: { queue: QUEUES.routing, name: 'requeue', data: { tenantId: randomUUID(), conversationIds } } },
      ]);
      outbox.push(...ids);
      return ids;
    });
    return id;
  }

  const deliveredAt = async (id: string) =>
    ((await t.dataSource.query(`SELECT delivered_at FROM outbox WHERE id = $1`, [id])) as { delivered_at: Date | null }[])[0].delivered_at;

  it('runs the request in this process and marks its row once the run is done, with no job in Redis', async () => {
    const routing = t.app.get(RoutingService);
    const requeue = jest.spyOn(routing, 'requeue');
    const conversationId = randomUUID();
    const id = await commitRequeue([conversationId]);
    await eventually(() => expect(requeue).toHaveBeenCalledWith([conversationId]));
    await eventually(async () => expect(await deliveredAt(id)).toBeInstanceOf(Date));
    expect(await queue.getJob(`ob-${id}`)).toBeUndefined();
    requeue.mockRestore();
  });

  it('hands a request whose run failed to the queue, which runs it again', async () => {
    const routing = t.app.get(RoutingService);
    const requeue = jest.spyOn(routing, 'requeue').mockRejectedValueOnce(new Error('database went away'));
    const conversationId = randomUUID();
    const id = await commitRequeue([conversationId]);
    // Once here (refused), once more by the queue's worker.
    await eventually(() => expect(requeue.mock.calls.filter(([ids]) => ids[0] === conversationId)).toHaveLength(2));
    await eventually(async () => expect(await (await queue.getJob(`ob-${id}`))?.getState()).toBe('completed'));
    await eventually(async () => expect(await deliveredAt(id)).toBeInstanceOf(Date));
    requeue.mockRestore();
  });
});
