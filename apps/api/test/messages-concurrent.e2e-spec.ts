import { randomUUID } from 'node:crypto';
import type { Principal } from '../src/modules/auth/principal';
import { DeskService } from '../src/modules/conversations/desk.service';
import { MessagesService } from '../src/modules/conversations/messages.service';
import { MachineHostService } from '../src/modules/machine-host/machine-host.service';
import { eventually } from '../../../test/support/eventually';
import { createTenant } from './support/factories';
import { createLine, openConversation } from './support/realtime';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Customers' and agents' text messages take the one-statement path (no transaction, no row lock:
 * the conversation's version and the unique message number decide). Both at once, on one
 * conversation, from two API processes, with the same client message ids sent twice at the same
 * time: every message is stored once, numbered 1…n without a gap, and each customer message is
 * exactly one machine step. The customer's menu choice, also written without a transaction, is
 * checked the same way.
 */
describe('concurrent messages on one conversation across two API processes', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
  });
  afterAll(() => Promise.all([a.close(), b.close()]));

  it('stores each message once, numbers them 1…n, and logs one step per customer message', async () => {
    const tenant = await createTenant(a.dataSource);
    const lineId = await createLine(a.dataSource, tenant, 'Concurrent messages');
    const id = await openConversation(a, tenant, lineId);

    const services = [a.app.get(MessagesService), b.app.get(MessagesService)];
    const open = () => undefined;
    const customerIds = Array.from({ length: 24 }, (_, i) => `c-${i}`);
    // Every customer message is sent twice at once (a retried request), through both processes.
    const customerSends = customerIds.flatMap((clientMessageId, i) =>
      [0, 1].map((copy) =>
        services[(i + copy) % 2].send(
          { conversationId: id, tenantId: tenant.client.id, sender: { kind: 'customer' }, text: `customer ${i}`, clientMessageId },
          open,
        ),
      ),
    );
    // Half the agent's replies are sent twice at once too (a resend under the same client id).
    const agentSends = Array.from({ length: 12 }, (_, i) =>
      services[i % 2].send(
        {
          conversationId: id,
          tenantId: tenant.client.id,
          sender: { kind: 'agent', id: 'agent-1' },
          text: `agent ${i % 6}`,
          clientMessageId: `a-${i % 6}`,
        },
        open,
      ),
    );
    const [customerSent, agentSent] = await Promise.all([Promise.all(customerSends), Promise.all(agentSends)]);
    const customerViews = customerSent.map((sent) => sent.message);
    const agentViews = agentSent.map((sent) => sent.message);

    // Both copies of a message answer the same stored message.
    for (let i = 0; i < customerIds.length; i++) expect(customerViews[2 * i].id).toBe(customerViews[2 * i + 1].id);
    for (let i = 0; i < 6; i++) expect(agentViews[i].id).toBe(agentViews[i + 6].id);

    const stored = (await a.dataSource.query(
      `SELECT sequence, sender_kind, client_message_id, text FROM messages WHERE conversation_id = $1 ORDER BY sequence`,
      [id],
    )) as { sequence: number; sender_kind: string; client_message_id: string | null; text: string }[];
    expect(stored).toHaveLength(customerIds.length + 6);
    expect(stored.map((row) => row.sequence)).toEqual(stored.map((_, i) => i + 1));
    expect(
      stored
        .filter((row) => row.sender_kind === 'customer')
        .map((row) => row.client_message_id)
        .sort(),
    ).toEqual([...customerIds].sort());
    // What each caller was answered is what was stored.
    const bySequence = new Map(stored.map((row) => [row.sequence, row]));
    for (const view of [...customerViews, ...agentViews]) expect(bySequence.get(view.sequence)?.text).toBe(view.text);

    // One machine step per stored customer message, in one unbroken chain of versions.
    const log = (await a.dataSource.query(
      `SELECT version, event FROM transition_log WHERE entity_type = 'conversation' AND entity_id = $1 ORDER BY version`,
      [id],
    )) as { version: number; event: string }[];
    expect(log.map((row) => row.version)).toEqual(log.map((_, i) => i + 1));
    expect(log.filter((row) => row.event === 'conversation.messageReceived')).toHaveLength(customerIds.length);
    const [conversation] = (await a.dataSource.query(`SELECT version FROM conversations WHERE id = $1`, [id])) as { version: number }[];
    expect(conversation.version).toBe(1 + customerIds.length);

    // And one message.created push per stored message (a resend pushes nothing new).
    const pushes = (await a.dataSource.query(
      `SELECT count(*)::int AS n FROM outbox WHERE topic = 'socket' AND payload::text LIKE $1 AND payload::text LIKE '%message.created%'`,
      [`%${id}%`],
    )) as { n: number }[];
    expect(pushes[0].n).toBe(stored.length);
  });

  it('reads and writes many conversations’ first customer messages in shared statements, each answered with its own', async () => {
    const tenant = await createTenant(a.dataSource);
    const lineId = await createLine(a.dataSource, tenant, 'Batched reads');
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push(await openConversation(a, tenant, lineId));
    // A fresh process has kept no conversation row: every first message reads its conversation.
    const service = b.app.get(MessagesService);
    const statements = jest.spyOn(b.dataSource, 'query');
    const sent = await Promise.all(
      ids.flatMap((id, i) =>
        [0, 1].map((n) =>
          service.send(
            {
              conversationId: id,
              tenantId: tenant.client.id,
              sender: { kind: 'customer' },
              text: `hello ${i}.${n}`,
              clientMessageId: `m-${i}-${n}`,
            },
            () => undefined,
          ),
        ),
      ),
    );
    const views = sent.map((answer) => answer.message);
    const reads = statements.mock.calls.filter(([sql]) => String(sql).includes('WITH ORDINALITY AS q(conversation_id'));
    // The writes too: several conversations' steps and messages in one statement.
    const batchedWrites = statements.mock.calls.filter(([sql]) => String(sql).trimStart().startsWith('WITH v AS'));
    statements.mockRestore();
    expect(batchedWrites.length).toBeGreaterThan(0);
    // Fewer reads than messages: the ones sent while a read was out went together.
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.length).toBeLessThan(views.length);
    expect(Math.max(...reads.map(([, params]) => (params as unknown[][])[0].length))).toBeGreaterThan(1);

    const stored = (await a.dataSource.query(
      `SELECT conversation_id, sequence, text FROM messages WHERE conversation_id = ANY($1) ORDER BY conversation_id, sequence`,
      [ids],
    )) as { conversation_id: string; sequence: number; text: string }[];
    ids.forEach((id, i) => {
      const mine = stored.filter((row) => row.conversation_id === id);
      expect(mine.map((row) => row.sequence)).toEqual([1, 2]);
      expect(mine.map((row) => row.text).sort()).toEqual([`hello ${i}.0`, `hello ${i}.1`]);
    });
    for (const view of views) expect(stored.find((row) => row.text === view.text)?.sequence).toBe(view.sequence);
  });

  it('a menu choice written alone (no transaction) applies once when sent at once from two processes', async () => {
    const tenant = await createTenant(a.dataSource);
    const lineId = await createLine(a.dataSource, tenant, 'Menu alone');
    const id = await openConversation(a, tenant, lineId);
    const hosts = [a.app.get(MachineHostService), b.app.get(MachineHostService)];
    const menu = {
      type: 'conversation.menuCompleted' as const,
      queryTypeId: 'q',
      submenuId: 's',
      attentionLineId: lineId,
      pollId: null,
      priority: 0,
    };
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        hosts[i % 2].dispatchConversationAlone(id, menu, { kind: 'customer' }, tenant.client.id).then(
          (row) => ({ ok: true as const, status: row.status }),
          (error: { code?: string }) => ({ ok: false as const, code: error.code }),
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.ok)).toEqual([{ ok: true, status: 'LiningUp' }]);
    for (const outcome of outcomes.filter((one) => !one.ok)) expect(outcome).toEqual({ ok: false, code: 'illegal_transition' });
    const log = (await a.dataSource.query(
      `SELECT version, event FROM transition_log WHERE entity_type = 'conversation' AND entity_id = $1 ORDER BY version`,
      [id],
    )) as { version: number; event: string }[];
    expect(log.map((row) => [row.version, row.event])).toEqual([
      [1, 'xstate.init'],
      [2, 'conversation.menuCompleted'],
    ]);
    // Its effects were written once with it: one routing request for the line.
    const requests = (await a.dataSource.query(
      `SELECT count(*)::int AS n FROM outbox WHERE topic = 'job' AND payload->>'name' = 'line' AND payload->'data'->>'attentionLineId' = $1`,
      [lineId],
    )) as { n: number }[];
    expect(requests[0].n).toBe(1);
    // And a wrong tenant reads as unknown, writing nothing.
    await expect(
      hosts[0].dispatchConversationAlone(id, menu, { kind: 'customer' }, (await createTenant(a.dataSource)).client.id),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

/**
 * An agent's reply without files, template or buttons: the conversation read (or kept), then the
 * message and its pushes in one statement that writes only if the conversation still has the
 * version the guard passed — no transaction, no row lock.
 */
describe('agent replies without a transaction', () => {
  let a: TestApp;

  beforeAll(async () => {
    a = await startTestApp();
  });
  afterAll(() => a.close());

  /** An Active conversation handled by a new agent id (the row only: agent messages do not step the machine). */
  async function activeConversation(channel = 'webchat', channelAccountId: string | null = null) {
    const tenant = await createTenant(a.dataSource);
    const lineId = await createLine(a.dataSource, tenant, 'Agent replies');
    const id = await openConversation(a, tenant, lineId);
    const agentId = randomUUID();
    await a.dataSource.query(
      `UPDATE conversations SET status = 'Active', agent_id = $2, channel = $3, channel_account_id = $4 WHERE id = $1`,
      [id, agentId, channel, channelAccountId],
    );
    const principal = { clientId: tenant.client.id, userId: agentId, permissions: [] } as unknown as Principal;
    return { tenant, id, agentId, principal };
  }

  const storedMessages = (id: string) =>
    a.dataSource.query(`SELECT id, sequence, text, client_message_id FROM messages WHERE conversation_id = $1 ORDER BY sequence`, [
      id,
    ]) as Promise<{ id: string; sequence: number; text: string; client_message_id: string | null }[]>;

  it('stores a desk reply in at most two statements without the row lock; a resend under its client id stores it once', async () => {
    const { id, principal } = await activeConversation();
    const desk = a.app.get(DeskService);
    const locks = jest.spyOn(a.app.get(MachineHostService), 'lockConversation');
    const statements = jest.spyOn(a.dataSource, 'query');
    const first = await desk.send(principal, id, { text: '  hello  ', clientMessageId: 'r-1' });
    const firstStatements = statements.mock.calls.length;
    const resent = await Promise.all([0, 1, 2].map(() => desk.send(principal, id, { text: 'hello', clientMessageId: 'r-1' })));
    const locked = locks.mock.calls.filter(([, conversationId]) => conversationId === id);
    statements.mockRestore();
    locks.mockRestore();

    expect(locked).toHaveLength(0);
    expect(firstStatements).toBeLessThanOrEqual(2);
    expect(first).toMatchObject({ sequence: 1, text: 'hello', senderKind: 'agent', clientMessageId: 'r-1', deliveryStatus: null });
    for (const again of resent) expect(again.id).toBe(first.id);
    expect(await storedMessages(id)).toEqual([{ id: first.id, sequence: 1, text: 'hello', client_message_id: 'r-1' }]);
    const pushes = (await a.dataSource.query(
      `SELECT count(*)::int AS n FROM outbox WHERE topic = 'socket' AND payload::text LIKE $1 AND payload::text LIKE '%message.created%'`,
      [`%${first.id}%`],
    )) as { n: number }[];
    expect(pushes[0].n).toBe(1);
  });

  it('is not held up by a transaction holding the conversation row (the locked path): the lock leaves a new message’s key check alone', async () => {
    // The locked path (a customer message whose step has intents, or whose attempts were used up)
    // holds the row, then inserts its message. A reply inserted meanwhile checks its foreign key
    // with FOR KEY SHARE on the same row: under FOR UPDATE it waited for the holder, and if the
    // holder's insert then waited for the reply's message number, PostgreSQL broke the cycle with
    // "deadlock detected" (seen in CI). FOR NO KEY UPDATE serialises the writers alike and lets
    // the key check through.
    const { tenant, id, principal } = await activeConversation();
    const desk = a.app.get(DeskService);
    const holder = a.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      await a.app.get(MachineHostService).lockConversation(holder.manager, id, tenant.client.id);
      let sent = false;
      const reply = desk.send(principal, id, { text: 'while the row is held' }).then((message) => {
        sent = true;
        return message;
      });
      const outcome = await eventually(async () => {
        if (sent) return 'sent';
        const [{ n }] = (await a.dataSource.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO messages%' AND query LIKE '%FROM conversations%'`,
        )) as { n: number }[];
        if (n > 0) return 'waiting for the row holder';
        throw new Error('the reply has neither been stored nor started waiting yet');
      });
      expect(outcome).toBe('sent');
      expect((await reply).text).toBe('while the row is held');
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
    expect((await storedMessages(id)).map((row) => row.text)).toEqual(['while the row is held']);
  });

  it('refuses a reply once the conversation was transferred or closed, as the locked path does, even from a kept row', async () => {
    const { id, principal } = await activeConversation();
    const desk = a.app.get(DeskService);
    // The first reply leaves this process keeping the conversation's row (Active, this agent).
    await desk.send(principal, id, { text: 'before' });

    await a.dataSource.query(`UPDATE conversations SET agent_id = $2, version = version + 1 WHERE id = $1`, [id, randomUUID()]);
    const refused = {
      code: 'illegal_transition',
      message: 'Only the agent handling an Active conversation may write to it (it is Active)',
    };
    await expect(desk.send(principal, id, { text: 'after transfer' })).rejects.toMatchObject(refused);

    await a.dataSource.query(`UPDATE conversations SET agent_id = $2, status = 'Closed', version = version + 1 WHERE id = $1`, [
      id,
      principal.userId,
    ]);
    await expect(desk.send(principal, id, { text: 'after close' })).rejects.toMatchObject({
      code: 'illegal_transition',
      message: 'Only the agent handling an Active conversation may write to it (it is Closed)',
    });
    expect((await storedMessages(id)).map((row) => row.text)).toEqual(['before']);
  });

  it('writes a reply to a messaging channel pending, with its channel-send job, in the same statement', async () => {
    const accountId = randomUUID();
    const { tenant, id, agentId } = await activeConversation('telegram', accountId);
    const { message } = await a.app
      .get(MessagesService)
      .send(
        { conversationId: id, tenantId: tenant.client.id, sender: { kind: 'agent', id: agentId }, text: 'on its way' },
        () => undefined,
      );
    expect(message.deliveryStatus).toBe('pending');
    const [row] = (await a.dataSource.query(
      `SELECT channel, channel_account_id, delivery_status, delivery_updated_at FROM messages WHERE id = $1`,
      [message.id],
    )) as { channel: string; channel_account_id: string; delivery_status: string; delivery_updated_at: Date | null }[];
    expect(row).toMatchObject({ channel: 'telegram', channel_account_id: accountId, delivery_status: 'pending' });
    expect(row.delivery_updated_at).not.toBeNull();
    const jobs = (await a.dataSource.query(`SELECT count(*)::int AS n FROM outbox WHERE topic = 'job' AND payload::text LIKE $1`, [
      `%channel-send.${message.id}%`,
    ])) as { n: number }[];
    expect(jobs[0].n).toBe(1);
  });
});
