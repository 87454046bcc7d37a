import { deliverStaffBatch, type ConversationView } from '@centralita/contracts';
import { eventually } from '../../../test/support/eventually';
import { MessagesService } from '../src/modules/conversations/messages.service';
import { REALTIME_CONFIG, type RealtimeConfig } from '../src/modules/machine-host/realtime-config';
import { RealtimeService } from '../src/modules/realtime/realtime.service';
import {
  connectBatchedStaff,
  connectStaff,
  createLine,
  createStaff,
  createTenant,
  openConversation,
  record,
  type StaffSocket,
} from './support/realtime';
import { startTestApp, type TestApp } from './support/test-app';

const versionsOf = (received: { event: string; data: unknown }[], id: string) =>
  received
    .filter((entry) => entry.event === 'conversation.updated' && (entry.data as ConversationView).id === id)
    .map((entry) => (entry.data as ConversationView).version);

/**
 * Supervisors who ask for batches (as the console does) get the tenant-wide stream coalesced per
 * turn of the server's event loop: one frame instead of one per push, each push once, in order,
 * even when they also joined one of the push's other rooms. Everyone else is unaffected.
 */
describe('batched supervisor stream', () => {
  let t: TestApp;
  const sockets: StaffSocket[] = [];

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await t.close();
  });

  async function scene() {
    const tenant = await createTenant(t.dataSource);
    const lineId = await createLine(t.dataSource, tenant, 'Batches');
    const supervisor = await createStaff(t, tenant, 'SUPER');
    const plain = await connectStaff(t.url, supervisor.token);
    const batched = await connectBatchedStaff(t.url, supervisor.token);
    sockets.push(plain, batched);
    const frames = record(batched);
    const plainReceived = record(plain);
    const unpacked: { event: string; data: unknown }[] = [];
    batched.on('batch', (pushes) =>
      deliverStaffBatch(
        { listeners: () => [], listenersAny: () => [(event: string, data: unknown) => unpacked.push({ event, data })] },
        pushes,
      ),
    );
    batched.on('conversation.updated', (data) => unpacked.push({ event: 'conversation.updated', data }));
    const id = await openConversation(t, tenant, lineId);
    // Its creation is pushed after the commit: let it arrive before the tests count what follows.
    await eventually(() => expect(versionsOf(plainReceived, id)).toContain(1));
    await eventually(() => expect(versionsOf(unpacked, id)).toContain(1));
    // The batched supervisor also watches the conversation itself: it must still get each push once.
    expect(await new Promise((resolve) => batched.emit('join', { kind: 'conversation', id }, resolve))).toMatchObject({ ok: true });
    for (const received of [frames, plainReceived, unpacked]) received.length = 0;
    return { tenant, id, plain, frames, plainReceived, unpacked };
  }

  it('sends the pushes of one loop turn as one batch frame, in order, once; a plain socket gets them one by one', async () => {
    const { tenant, id, frames, plainReceived, unpacked } = await scene();
    const realtime = t.app.get(RealtimeService);
    const rooms = [`tenant:${tenant.client.id}`, `conversation:${id}`];
    for (let version = 11; version <= 15; version++) realtime.emit('staff', rooms, 'conversation.updated', { id, version });

    await eventually(() => expect(versionsOf(plainReceived, id)).toEqual(expect.arrayContaining([11, 12, 13, 14, 15])));
    await eventually(() => expect(versionsOf(unpacked, id).filter((v) => v > 10)).toEqual([11, 12, 13, 14, 15]));
    const batches = frames.filter((entry) => entry.event === 'batch');
    expect(batches).toHaveLength(1);
    expect((batches[0].data as [string, { version: number }][]).map(([event, view]) => `${event}@${view.version}`)).toEqual([
      'conversation.updated@11',
      'conversation.updated@12',
      'conversation.updated@13',
      'conversation.updated@14',
      'conversation.updated@15',
    ]);
    // Nothing of it arrived outside the batch, though the socket is in the conversation room too.
    expect(frames.filter((entry) => entry.event === 'conversation.updated' && (entry.data as ConversationView).version > 10)).toEqual([]);
    expect(plainReceived.some((entry) => entry.event === 'batch')).toBe(false);

    // A push alone in its turn arrives as itself.
    realtime.emit('staff', rooms, 'conversation.updated', { id, version: 16 });
    await eventually(() => expect(frames.at(-1)).toEqual({ event: 'conversation.updated', data: { id, version: 16 } }));
  });

  it('paces frames under load when SUPERVISOR_BATCH_INTERVAL_MS is set: pushes of later turns wait for the next frame', async () => {
    const { tenant, id, frames, unpacked } = await scene();
    const realtime = t.app.get(RealtimeService);
    const config = t.app.get<RealtimeConfig>(REALTIME_CONFIG);
    const rooms = [`tenant:${tenant.client.id}`, `conversation:${id}`];
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    config.supervisorBatchIntervalMs = 400;
    try {
      realtime.emit('staff', rooms, 'conversation.updated', { id, version: 21 });
      await eventually(() => expect(versionsOf(unpacked, id)).toContain(21));
      // Two more pushes, each in a turn of its own, within the interval of the frame that carried 21:
      // unpaced, each would leave alone at the end of its turn.
      await turn();
      realtime.emit('staff', rooms, 'conversation.updated', { id, version: 22 });
      await turn();
      realtime.emit('staff', rooms, 'conversation.updated', { id, version: 23 });
      await eventually(() => expect(versionsOf(unpacked, id).filter((v) => v > 20)).toEqual([21, 22, 23]));
      const after21 = frames.slice(frames.findIndex((entry) => JSON.stringify(entry).includes('"version":21')) + 1);
      expect(after21).toEqual([
        {
          event: 'batch',
          data: [
            ['conversation.updated', { id, version: 22 }],
            ['conversation.updated', { id, version: 23 }],
          ],
        },
      ]);
    } finally {
      config.supervisorBatchIntervalMs = 0;
    }
  });

  it('carries every machine step of concurrent customer messages, each version once, in push order', async () => {
    const { tenant, id, plain, plainReceived, unpacked } = await scene();
    // A customer's message only touches the conversation: it is pushed to the conversation's room
    // (and its agent), not tenant-wide, so the plain socket watches this conversation as well.
    expect(await new Promise((resolve) => plain.emit('join', { kind: 'conversation', id }, resolve))).toMatchObject({ ok: true });
    const messages = t.app.get(MessagesService);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        messages.send(
          { conversationId: id, tenantId: tenant.client.id, sender: { kind: 'customer' }, text: `m${i}`, clientMessageId: `m${i}` },
          () => undefined,
        ),
      ),
    );
    const expected = Array.from({ length: 30 }, (_, i) => i + 2);
    // Every step reaches both sockets once; the batched one in the very order the server pushed them.
    await eventually(() => expect([...versionsOf(plainReceived, id)].sort((x, y) => x - y)).toEqual(expected));
    await eventually(() => expect(versionsOf(unpacked, id)).toEqual(versionsOf(plainReceived, id)));
  });
});

/**
 * A process that shuts down while it holds pushes for its next frame (paced by
 * SUPERVISOR_BATCH_INTERVAL_MS) sends them before it closes: the relay has marked them delivered,
 * so nothing else would, and a supervisor connected to another process must still see them.
 */
describe('batched supervisor stream across a shutdown', () => {
  let leaving: TestApp;
  let staying: TestApp;
  const sockets: StaffSocket[] = [];

  beforeAll(async () => {
    [leaving, staying] = await Promise.all([startTestApp(), startTestApp()]);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await Promise.all([leaving.close(), staying.close()]);
  });

  it('sends the held frame on shutdown to the supervisors of the other process', async () => {
    const tenant = await createTenant(staying.dataSource);
    const supervisor = await createStaff(staying, tenant, 'SUPER');
    const batched = await connectBatchedStaff(staying.url, supervisor.token);
    sockets.push(batched);
    const unpacked: number[] = [];
    const id = 'held-across-shutdown';
    const collect = (event: string, data: unknown) => {
      if (event === 'conversation.updated' && (data as { id: string }).id === id) unpacked.push((data as { version: number }).version);
    };
    batched.on('batch', (pushes) => deliverStaffBatch({ listeners: () => [], listenersAny: () => [collect] }, pushes));
    batched.on('conversation.updated', (data) => collect('conversation.updated', data));

    const realtime = leaving.app.get(RealtimeService);
    leaving.app.get<RealtimeConfig>(REALTIME_CONFIG).supervisorBatchIntervalMs = 60_000;
    const rooms = [`tenant:${tenant.client.id}`];
    realtime.emit('staff', rooms, 'conversation.updated', { id, version: 1 });
    await eventually(() => expect(unpacked).toEqual([1]));
    // Within the minute of the frame that carried 1: held for the next frame.
    realtime.emit('staff', rooms, 'conversation.updated', { id, version: 2 });
    realtime.emit('staff', rooms, 'conversation.updated', { id, version: 3 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(unpacked).toEqual([1]);

    await leaving.close();
    await eventually(() => expect(unpacked).toEqual([1, 2, 3]));
  });
});
