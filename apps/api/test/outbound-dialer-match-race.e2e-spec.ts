import { OutboundCallEventJob } from '@centralita/contracts';
import { randomUUID } from 'node:crypto';
import type { QueryRunner } from 'typeorm';
import { MachineHostService } from '../src/modules/machine-host/machine-host.service';
import { CallHostService } from '../src/modules/outbound/call-host.service';
import { SYSTEM } from '../src/modules/outbound/outbound-rows';
import type { Work } from '../src/modules/outbound/outbound-transaction.service';
import { createTenant, createUser, type TestTenant } from './support/factories';
import { ALWAYS_OPEN, createPhoneList } from './support/outbound';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

/**
 * A person answers at the moment an agent starts waiting: the call's transaction looks for a
 * waiting agent while the agent's looks for an answered call. Both must not commit unmatched (the
 * person would wait for the abandon timer next to an idle agent). The two transactions are driven
 * by hand so the interleaving that lost the match is the one tested, every run.
 */
const PREFIX = `${process.env.QUEUE_PREFIX ?? 'centralita'}-dialer-match`;

describe('outbound dialer: an answered call and a waiting agent meet whichever commits first (e2e)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let campaignId: string;
  let calls: CallHostService;
  let host: MachineHostService;
  const runners: QueryRunner[] = [];

  beforeAll(async () => {
    const poll = process.env.OUTBOX_POLL_MS;
    process.env.OUTBOX_POLL_MS = '3600000';
    t = await startTestApp({ queuePrefix: PREFIX }, { ownDatabase: true });
    if (poll === undefined) delete process.env.OUTBOX_POLL_MS;
    else process.env.OUTBOX_POLL_MS = poll;
    calls = t.app.get(CallHostService);
    host = t.app.get(MachineHostService);
    tenant = await createTenant(t.dataSource);
    const admin = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
    const token = (await login(t, admin.email, admin.password)).accessToken;
    const phones = Array.from({ length: 4 }, (_, i) => ({ phone: `+3491400${String(i).padStart(4, '0')}`, name: `M${i}` }));
    const listId = await createPhoneList(t.dataSource, tenant, phones);
    const created = await t
      .http()
      .post('/api/outbound/campaigns')
      .set(bearer(token))
      .send({ name: 'Match race', phoneListId: listId, mode: 'progressive', callingWindows: ALWAYS_OPEN });
    expect(created.status).toBe(200);
    campaignId = created.body.data.id as string;
    expect((await t.http().post(`/api/outbound/campaigns/${campaignId}/start`).set(bearer(token))).status).toBe(200);
  });

  afterAll(async () => {
    for (const runner of runners) if (!runner.isReleased) await runner.release().catch(() => undefined);
    await t.close();
  });

  const work = (): Work => ({ outbox: [], timers: [], boards: new Set(), deadlines: [] });

  async function transaction(): Promise<QueryRunner> {
    const runner = t.dataSource.createQueryRunner();
    runners.push(runner);
    await runner.connect();
    await runner.startTransaction();
    return runner;
  }

  /** A signed-in agent (available) and a call of the campaign ringing at a free contact. */
  async function agentAndRingingCall(phoneIndex: number): Promise<{ agentId: string; callId: string }> {
    const { user, email, password } = await createUser(t.dataSource, tenant, { role: 'AGENT' });
    const token = (await login(t, email, password)).accessToken;
    expect((await t.http().post('/api/agent/presence/login').set(bearer(token)).send({})).status).toBe(200);
    const [contact] = (await t.dataSource.query(
      `SELECT id, phone FROM outbound_contacts WHERE campaign_id = $1 ORDER BY phone OFFSET $2 LIMIT 1`,
      [campaignId, phoneIndex],
    )) as { id: string; phone: string }[];
    const callId = randomUUID();
    const create: Extract<OutboundCallEventJob, { kind: 'create' }> = {
      kind: 'create',
      callId,
      tenantId: tenant.client.id,
      campaignId,
      contactId: contact!.id,
      phone: contact!.phone,
      attempt: 1,
      abandonThresholdMs: 600_000,
      at: Date.now(),
    };
    expect(await calls.createCall(create)).not.toBeNull();
    await calls.dispatchCall(callId, { type: 'call.ringing' }, SYSTEM);
    return { agentId: user.id, callId };
  }

  async function statusOf(callId: string, agentId: string): Promise<{ call: string; callAgent: string | null; agent: string }> {
    const [call] = (await t.dataSource.query(`SELECT status, agent_id FROM outbound_calls WHERE id = $1`, [callId])) as {
      status: string;
      agent_id: string | null;
    }[];
    const [agent] = (await t.dataSource.query(`SELECT status FROM agent_presence WHERE user_id = $1`, [agentId])) as { status: string }[];
    return { call: call!.status, callAgent: call!.agent_id, agent: agent!.status };
  }

  it('the agent started waiting first (uncommitted) when the person answered', async () => {
    const { agentId, callId } = await agentAndRingingCall(0);
    const waiting = await transaction();
    await host.dispatchAgent(
      waiting.manager,
      agentId,
      { type: 'agent.outboundWaitStarted' },
      { kind: 'agent', id: agentId },
      tenant.client.id,
    );
    const answered = await transaction();
    // The call's step looks for a waiting agent: the agent's row is the other transaction's.
    await calls.stepCall(answered.manager, work(), callId, { type: 'call.answered', by: 'human' }, SYSTEM);
    // The agent's transaction now looks for an answered call, while the call's is still open.
    const offered = calls.offerAnsweredCall(waiting.manager, work(), agentId, tenant.client.id);
    await answered.commitTransaction();
    expect((await offered)?.id).toBe(callId);
    await waiting.commitTransaction();
    expect(await statusOf(callId, agentId)).toEqual({ call: 'connected', callAgent: agentId, agent: 'outboundCall' });
  });

  it('the person answered first (uncommitted) when the agent started waiting', async () => {
    const { agentId, callId } = await agentAndRingingCall(1);
    const answered = await transaction();
    await calls.stepCall(answered.manager, work(), callId, { type: 'call.answered', by: 'human' }, SYSTEM);
    const waiting = await transaction();
    await host.dispatchAgent(
      waiting.manager,
      agentId,
      { type: 'agent.outboundWaitStarted' },
      { kind: 'agent', id: agentId },
      tenant.client.id,
    );
    const offered = calls.offerAnsweredCall(waiting.manager, work(), agentId, tenant.client.id);
    await answered.commitTransaction();
    expect((await offered)?.id).toBe(callId);
    await waiting.commitTransaction();
    expect(await statusOf(callId, agentId)).toEqual({ call: 'connected', callAgent: agentId, agent: 'outboundCall' });
  });
});
