import { randomUUID } from 'node:crypto';
import { ConversationIntakeService, type CustomerMessageInput } from '../../src/modules/intake/conversation-intake.service';
import { MachineHostService } from '../../src/modules/machine-host/machine-host.service';
import { createTenant } from '../support/factories';
import { createLine } from '../support/realtime';
import { startTestApp, type TestApp } from '../support/test-app';
import type { TestTenant } from '../support/factories';

/**
 * The conversation intake as a provider's webhooks drive it: deliveries for a new contact arriving
 * at once (on two API processes), a provider retrying a delivery, and the keys that keep channel
 * accounts and tenants apart. Every check reads what the database holds.
 */
describe(ConversationIntakeService.name, () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
  });
  afterAll(() => Promise.all([a.close(), b.close()]));

  const intakes = () => [a.app.get(ConversationIntakeService), b.app.get(ConversationIntakeService)];

  async function tenantWithLine(): Promise<{ tenant: TestTenant; lineId: string }> {
    const tenant = await createTenant(a.dataSource);
    return { tenant, lineId: await createLine(a.dataSource, tenant, `Intake ${randomUUID().slice(0, 8)}`) };
  }

  function delivery(tenantId: string, lineId: string, over: Partial<CustomerMessageInput> & { contactId?: string } = {}) {
    const { contactId = 'wa-34600111222', ...rest } = over;
    return {
      tenantId,
      channel: 'whatsapp',
      channelAccountId: 'phone-number-1',
      contact: { externalId: contactId, name: 'Ana' },
      lineId,
      text: 'hola',
      ...rest,
    } as CustomerMessageInput;
  }

  const conversationsOf = async (tenantId: string) =>
    (await a.dataSource.query(
      `SELECT c.id, c.status, c.channel, c.channel_account_id, k.external_id AS contact FROM conversations c
       JOIN contacts k ON k.id = c.contact_id WHERE c.tenant_id = $1 ORDER BY c.created_at`,
      [tenantId],
    )) as { id: string; status: string; channel: string; channel_account_id: string; contact: string }[];

  const messagesOf = async (tenantId: string) =>
    (await a.dataSource.query(
      `SELECT conversation_id, sequence, text, external_id, channel_account_id FROM messages WHERE tenant_id = $1 ORDER BY conversation_id, sequence`,
      [tenantId],
    )) as { conversation_id: string; sequence: number; text: string; external_id: string | null; channel_account_id: string }[];

  it('opens one conversation for a new contact whose first messages arrive at once on two processes, and stores each', async () => {
    const { tenant, lineId } = await tenantWithLine();
    const sends = Array.from({ length: 12 }, (_, i) =>
      intakes()[i % 2].appendCustomerMessage(delivery(tenant.client.id, lineId, { text: `message ${i}`, externalId: `wamid.${i}` })),
    );
    const answers = await Promise.all(sends);

    const conversations = await conversationsOf(tenant.client.id);
    expect(conversations).toHaveLength(1);
    expect(conversations[0]).toMatchObject({ status: 'Transitory', channel: 'whatsapp', channel_account_id: 'phone-number-1' });
    expect(new Set(answers.map((answer) => answer.conversationId))).toEqual(new Set([conversations[0].id]));
    const stored = await messagesOf(tenant.client.id);
    expect(stored.map((row) => row.sequence)).toEqual(stored.map((_, i) => i + 1));
    expect(stored.map((row) => row.external_id).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `wamid.${i}`).sort());
    const contacts = (await a.dataSource.query(`SELECT count(*)::int AS n FROM contacts WHERE tenant_id = $1`, [tenant.client.id])) as {
      n: number;
    }[];
    expect(contacts[0].n).toBe(1);
    // One creation and one messageReceived per stored message in the conversation's log.
    const log = (await a.dataSource.query(`SELECT event FROM transition_log WHERE entity_id = $1 ORDER BY version`, [
      conversations[0].id,
    ])) as { event: string }[];
    expect(log.map((row) => row.event)).toEqual(['xstate.init', ...stored.map(() => 'conversation.messageReceived')]);
  });

  it('stores a provider’s repeated delivery once, also when the repeats arrive at once', async () => {
    const { tenant, lineId } = await tenantWithLine();
    const same = delivery(tenant.client.id, lineId, { externalId: 'wamid.retry', text: 'only once' });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => intakes()[i % 2].appendCustomerMessage(same)));
    const again = await intakes()[0].appendCustomerMessage(same);

    const stored = await messagesOf(tenant.client.id);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ text: 'only once', external_id: 'wamid.retry', sequence: 1 });
    expect(new Set([...answers, again].map((answer) => answer.message.id)).size).toBe(1);
    expect(await conversationsOf(tenant.client.id)).toHaveLength(1);
  });

  it('answers a retry of a message whose conversation has closed with the stored message, opening nothing', async () => {
    const { tenant, lineId } = await tenantWithLine();
    const first = await intakes()[0].appendCustomerMessage(delivery(tenant.client.id, lineId, { externalId: 'wamid.old' }));
    await a.app
      .get(MachineHostService)
      .dispatch('conversation', first.conversationId, { type: 'conversation.abandoned' }, { kind: 'system' }, tenant.client.id);

    const retried = await intakes()[1].appendCustomerMessage(delivery(tenant.client.id, lineId, { externalId: 'wamid.old' }));
    expect(retried.message.id).toBe(first.message.id);
    expect(await conversationsOf(tenant.client.id)).toHaveLength(1);

    // A new message from the contact opens their next conversation.
    const next = await intakes()[1].appendCustomerMessage(delivery(tenant.client.id, lineId, { externalId: 'wamid.new' }));
    expect(next.conversationId).not.toBe(first.conversationId);
    expect((await conversationsOf(tenant.client.id)).map((row) => row.status)).toEqual(['Closed', 'Transitory']);
  });

  it('goes past a remembered conversation that closed: a retry answers the stored message, a new one opens the next conversation', async () => {
    // Process a remembers where each contact's last message went and skips the lookup next time.
    const { tenant, lineId } = await tenantWithLine();
    const [intakeA, intakeB] = intakes();
    const first = await intakeA.appendCustomerMessage(delivery(tenant.client.id, lineId, { externalId: 'wamid.r1' }));
    const second = await intakeA.appendCustomerMessage(delivery(tenant.client.id, lineId, { externalId: 'wamid.r2' }));
    expect(second.conversationId).toBe(first.conversationId);
    await a.app
      .get(MachineHostService)
      .dispatch('conversation', first.conversationId, { type: 'conversation.abandoned' }, { kind: 'system' }, tenant.client.id);

    const retried = await intakeA.appendCustomerMessage(delivery(tenant.client.id, lineId, { externalId: 'wamid.r2' }));
    expect({ id: retried.message.id, conversationId: retried.conversationId }).toEqual({
      id: second.message.id,
      conversationId: first.conversationId,
    });
    expect(await conversationsOf(tenant.client.id)).toHaveLength(1);

    const next = await intakeA.appendCustomerMessage(delivery(tenant.client.id, lineId, { externalId: 'wamid.r3' }));
    expect(next.conversationId).not.toBe(first.conversationId);
    // That conversation closes on process b's watch and b opens the next: a still remembers the closed one.
    await a.app
      .get(MachineHostService)
      .dispatch('conversation', next.conversationId, { type: 'conversation.abandoned' }, { kind: 'system' }, tenant.client.id);
    const onB = await intakeB.appendCustomerMessage(delivery(tenant.client.id, lineId, { externalId: 'wamid.r4' }));
    const onA = await intakeA.appendCustomerMessage(delivery(tenant.client.id, lineId, { externalId: 'wamid.r5' }));
    expect(onA.conversationId).toBe(onB.conversationId);
    expect((await conversationsOf(tenant.client.id)).map((row) => row.status)).toEqual(['Closed', 'Closed', 'Transitory']);
    expect((await messagesOf(tenant.client.id)).map((row) => row.external_id).sort()).toEqual([
      'wamid.r1',
      'wamid.r2',
      'wamid.r3',
      'wamid.r4',
      'wamid.r5',
    ]);
  });

  it('keeps channel accounts apart: the same contact and message ids on two accounts are two conversations and two messages', async () => {
    const { tenant, lineId } = await tenantWithLine();
    const [one, two] = await Promise.all(
      ['phone-number-1', 'phone-number-2'].map((channelAccountId, i) =>
        intakes()[i].appendCustomerMessage(delivery(tenant.client.id, lineId, { channelAccountId, externalId: 'wamid.same' })),
      ),
    );
    expect(one.conversationId).not.toBe(two.conversationId);
    const stored = await messagesOf(tenant.client.id);
    expect(stored.map((row) => row.channel_account_id).sort()).toEqual(['phone-number-1', 'phone-number-2']);
    expect((await conversationsOf(tenant.client.id)).map((row) => row.channel_account_id).sort()).toEqual([
      'phone-number-1',
      'phone-number-2',
    ]);
  });

  it('keeps tenants apart: another tenant’s identical account, contact and message ids are its own', async () => {
    const first = await tenantWithLine();
    const second = await tenantWithLine();
    const mine = await intakes()[0].appendCustomerMessage(delivery(first.tenant.client.id, first.lineId, { externalId: 'wamid.shared' }));
    const theirs = await intakes()[1].appendCustomerMessage(
      delivery(second.tenant.client.id, second.lineId, { externalId: 'wamid.shared' }),
    );
    expect(theirs.message.id).not.toBe(mine.message.id);
    expect(await messagesOf(first.tenant.client.id)).toHaveLength(1);
    expect(await messagesOf(second.tenant.client.id)).toHaveLength(1);
    const [conversation] = await conversationsOf(second.tenant.client.id);
    expect(conversation.id).toBe(theirs.conversationId);
  });

  it('opens nothing on a line of another tenant', async () => {
    const mine = await tenantWithLine();
    const other = await tenantWithLine();
    await expect(
      intakes()[0].appendCustomerMessage(delivery(mine.tenant.client.id, other.lineId, { externalId: 'wamid.x' })),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(await conversationsOf(mine.tenant.client.id)).toHaveLength(0);
    expect(await messagesOf(mine.tenant.client.id)).toHaveLength(0);
  });

  it('refuses an unknown channel and an over-long provider id, storing nothing', async () => {
    const { tenant, lineId } = await tenantWithLine();
    await expect(
      intakes()[0].appendCustomerMessage({
        ...delivery(tenant.client.id, lineId),
        channel: 'carrier-pigeon',
      } as unknown as CustomerMessageInput),
    ).rejects.toMatchObject({ code: 'validation' });
    await expect(
      intakes()[0].appendCustomerMessage(delivery(tenant.client.id, lineId, { externalId: 'x'.repeat(513) })),
    ).rejects.toMatchObject({ code: 'validation' });
    const contacts = (await a.dataSource.query(`SELECT count(*)::int AS n FROM contacts WHERE tenant_id = $1`, [tenant.client.id])) as {
      n: number;
    }[];
    expect(contacts[0].n).toBe(0);
    expect(await messagesOf(tenant.client.id)).toHaveLength(0);
  });

  it('lets the database refuse a second open conversation for one contact', async () => {
    const { tenant, lineId } = await tenantWithLine();
    const opened = await intakes()[0].openOrFind(
      delivery(tenant.client.id, lineId) as Parameters<ConversationIntakeService['openOrFind']>[0],
    );
    const [copy] = (await a.dataSource.query(`SELECT * FROM conversations WHERE id = $1`, [opened.conversation.id])) as Record<
      string,
      unknown
    >[];
    await expect(
      a.dataSource.query(
        `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, status, customer_name, snapshot, version, last_event, contact_id)
         VALUES ($1, $2, 'whatsapp', $3, 'LiningUp', 'Ana', $4, 1, 'xstate.init', $5)`,
        [randomUUID(), tenant.client.id, lineId, copy.snapshot, opened.contactId],
      ),
    ).rejects.toMatchObject({ constraint: 'uq_conversations_open_contact' });
  });
});
