import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_REPLAYED_HEADER, type Envelope, type StartChatResult } from '@centralita/contracts';
import { randomUUID } from 'node:crypto';
import { eventually } from '../../../../test/support/eventually';
import { requestFingerprint } from '../../src/modules/idempotency/idempotency.interceptor';
import { IdempotencyService } from '../../src/modules/idempotency/idempotency.service';
import { createCampaign, createLine, createStaff, createTenant, data, type StaffMember } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import { queueCustomer, tenantLog } from './consistency';

type Answer = { status: number; body: Envelope<unknown> & { errorCode?: string }; headers: Record<string, string> };

/**
 * Issue 18, 6 (what an integrator misses): the staff API's conversation and presence commands and
 * the widget's customer messages take an Idempotency-Key. Repeats of one call — concurrent or
 * later — act once: the first call's answer is given back, a repeat while it runs answers 409.
 */
describe('Idempotency-Key on state-changing calls', () => {
  let t: TestApp;
  /** A second API process on the same database: repeats may land on either. */
  let other: TestApp;
  const savedLimit = process.env.RATE_LIMIT_WEBCHAT_START_IP;

  beforeAll(async () => {
    process.env.RATE_LIMIT_WEBCHAT_START_IP = '100000';
    [t, other] = await Promise.all([startTestApp(), startTestApp()]);
  });
  afterAll(async () => {
    await Promise.all([t.close(), other.close()]);
    process.env.RATE_LIMIT_WEBCHAT_START_IP = savedLimit;
  });

  async function agentWithConversation(): Promise<{ tenantId: string; agent: StaffMember; conversationId: string }> {
    const tenant = await createTenant(t.dataSource);
    const line = await createLine(t.dataSource, tenant, 'Keyed');
    const campaignId = await createCampaign(t.dataSource, tenant, 2);
    const agent = await createStaff(t, tenant, 'AGENT', [line]);
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
    const conversationId = await queueCustomer(t, line, 'Ada');
    await eventually(async () => {
      const [row] = await t.dataSource.query(`SELECT status, agent_id FROM conversations WHERE id = $1`, [conversationId]);
      expect(row).toEqual({ status: 'Active', agent_id: agent.userId });
    });
    return { tenantId: tenant.client.id, agent, conversationId };
  }

  function post(path: string, token: string, key: string, body: object, app: TestApp = t): Promise<Answer> {
    return app
      .http()
      .post(path)
      .set(bearer(token))
      .set(IDEMPOTENCY_KEY_HEADER, key)
      .send(body)
      .then((response) => ({
        status: response.status,
        body: response.body as Answer['body'],
        headers: response.headers as Record<string, string>,
      }));
  }

  /** Every answer is the first call's (200) or "still running" (409 with Retry-After); at least one is the answer. */
  function expectOneAnswer(answers: Answer[]): Answer {
    for (const answer of answers) {
      if (answer.status === 409) {
        expect(answer.body.errorCode).toBe('idempotency_in_progress');
        expect(answer.headers['retry-after']).toBe('1');
      } else expect(answer.status).toBe(200);
    }
    const answered = answers.filter((answer) => answer.status === 200);
    expect(answered.length).toBeGreaterThan(0);
    for (const answer of answered) expect(answer.body.data).toEqual(answered[0].body.data);
    return answered[0];
  }

  it('stores an agent message once for concurrent repeats on two API processes and gives the same answer to a later one', async () => {
    const { agent, conversationId } = await agentWithConversation();
    const key = randomUUID();
    const path = `/api/agent/conversations/${conversationId}/messages`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) => post(path, agent.token, key, { text: 'Hola, ¿en qué le ayudo?' }, index % 2 ? other : t)),
    );
    const first = expectOneAnswer(answers);

    const stored = await t.dataSource.query(`SELECT id FROM messages WHERE conversation_id = $1 AND sender_kind = 'agent'`, [
      conversationId,
    ]);
    expect(stored).toEqual([{ id: (first.body.data as { id: string }).id }]);

    const later = await post(path, agent.token, key, { text: 'Hola, ¿en qué le ayudo?' });
    expect(later.status).toBe(200);
    expect(later.headers[IDEMPOTENCY_REPLAYED_HEADER.toLowerCase()]).toBe('true');
    expect(later.body.data).toEqual(first.body.data);

    // The same key for another request is refused, and stores nothing.
    const reused = await post(path, agent.token, key, { text: 'Otra cosa' });
    expect(reused.status).toBe(422);
    expect(reused.body.errorCode).toBe('idempotency_key_reused');
    expect(reused.body.errorMessage).toMatch(/Idempotency-Key was already used for a different request/);
    expect(
      await t.dataSource.query(`SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1 AND sender_kind = 'agent'`, [
        conversationId,
      ]),
    ).toEqual([{ n: 1 }]);
  });

  it('closes once for concurrent repeats: one log row each for the conversation and the agent, no refusal', async () => {
    const { tenantId, agent, conversationId } = await agentWithConversation();
    const key = randomUUID();
    const path = `/api/agent/conversations/${conversationId}/close`;
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(path, agent.token, key, { disposition: 'solved' })));
    const first = expectOneAnswer(answers);
    expect(first.body.data).toMatchObject({ id: conversationId, status: 'Closed' });

    const log = await tenantLog(t.dataSource, tenantId);
    expect(log.filter((row) => row.entity_id === conversationId && row.event === 'conversation.closed')).toHaveLength(1);
    expect(log.filter((row) => row.entity_id === agent.userId && row.event === 'agent.conversationReleased')).toHaveLength(1);

    const later = await post(path, agent.token, key, { disposition: 'solved' });
    expect(later.status).toBe(200);
    expect(later.body.data).toEqual(first.body.data);
    // Without the key, the same close is refused: the conversation is already closed.
    const unkeyed = await t.http().post(path).set(bearer(agent.token)).send({ disposition: 'solved' });
    expect(unkeyed.status).toBe(409);
  });

  it('answers a repeated pause from the first call even after the agent moved on, and runs a failed call again', async () => {
    const tenant = await createTenant(t.dataSource);
    const campaignId = await createCampaign(t.dataSource, tenant, 1);
    await t.dataSource.query(
      `INSERT INTO pause_reasons (tenant_id, code, label, position) VALUES ($1, 'break', 'Break', 1) ON CONFLICT DO NOTHING`,
      [tenant.client.id],
    );
    const agent = await createStaff(t, tenant, 'AGENT');
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);

    // A refused call keeps nothing: the key is free for the next call, whatever it sends.
    const key = randomUUID();
    expect((await post('/api/agent/presence/pause', agent.token, key, { reasonId: 'nope' })).status).toBeGreaterThanOrEqual(400);
    const paused = await post('/api/agent/presence/pause', agent.token, key, { reasonId: 'break' });
    expect(paused.status).toBe(200);
    expect(paused.body.data).toMatchObject({ status: 'paused' });

    await post('/api/agent/presence/available', agent.token, randomUUID(), {}).then((answer) => expect(answer.status).toBe(200));
    const repeat = await post('/api/agent/presence/pause', agent.token, key, { reasonId: 'break' });
    expect(repeat.status).toBe(200);
    expect(repeat.body.data).toEqual(paused.body.data);
    const [presence] = await t.dataSource.query(`SELECT status FROM agent_presence WHERE user_id = $1`, [agent.userId]);
    expect(presence.status).toBe('available');
    const log = await tenantLog(t.dataSource, tenant.client.id);
    expect(log.filter((row) => row.entity_id === agent.userId && row.event === 'agent.paused')).toHaveLength(1);

    // Keys belong to their caller: a colleague's call with the same key is their own.
    const colleague = await createStaff(t, tenant, 'AGENT');
    await t.http().post('/api/agent/presence/login').set(bearer(colleague.token)).send({ campaignId }).expect(200);
    const theirs = await post('/api/agent/presence/pause', colleague.token, key, { reasonId: 'break' });
    expect(theirs.status).toBe(200);
    expect(theirs.headers[IDEMPOTENCY_REPLAYED_HEADER.toLowerCase()]).toBeUndefined();

    expect((await post('/api/agent/presence/available', agent.token, 'not a key', {})).status).toBe(400);
  });

  it('keys a web-chat customer message per visitor session; the answer carries the conversation version', async () => {
    const tenant = await createTenant(t.dataSource);
    const line = await createLine(t.dataSource, tenant, 'Widget');
    const started = data<StartChatResult>(await t.http().post('/api/webchat/conversations').send({ attentionLineId: line, name: 'Bo' }));
    await t
      .http()
      .post('/api/webchat/conversation/menu')
      .set(bearer(started.visitorToken))
      .send({ queryTypeId: 'q', submenuId: 's' })
      .expect(200);
    const key = randomUUID();
    // No clientMessageId: only the key tells the repeats apart from new messages.
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => post('/api/webchat/conversation/messages', started.visitorToken, key, { text: 'Buenos días' })),
    );
    const first = expectOneAnswer(answers);
    expect(first.body.data).toMatchObject({ text: 'Buenos días', conversationVersion: expect.any(Number) });
    expect(
      await t.dataSource.query(`SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1 AND sender_kind = 'customer'`, [
        started.conversation.id,
      ]),
    ).toEqual([{ n: 1 }]);
  });

  it('answers 409 with Retry-After while the first call runs, and runs again once that call was abandoned', async () => {
    const { tenantId, agent, conversationId } = await agentWithConversation();
    const key = randomUUID();
    const path = `/api/agent/conversations/${conversationId}/messages`;
    const body = { text: 'Sigo aquí' };
    // The first call's claim, as a process that is still running it (or died running it) leaves it.
    const store = t.app.get(IdempotencyService);
    const owner = { tenantId, caller: `user:${agent.userId}` };
    expect(await store.claim(owner, key, requestFingerprint('POST', path, body))).toEqual({ kind: 'first' });

    const running = await post(path, agent.token, key, body, other);
    expect(running.status).toBe(409);
    expect(running.body.errorCode).toBe('idempotency_in_progress');
    expect(running.headers['retry-after']).toBe('1');
    expect(await post(path, agent.token, key, { text: 'Otra' })).toMatchObject({ status: 422 });

    await t.dataSource.query(`UPDATE idempotency_keys SET created_at = now() - interval '61 seconds' WHERE tenant_id = $1 AND key = $2`, [
      tenantId,
      key,
    ]);
    const taken = await post(path, agent.token, key, body);
    expect(taken.status).toBe(200);
    expect(taken.headers[IDEMPOTENCY_REPLAYED_HEADER.toLowerCase()]).toBeUndefined();
    const replayed = await post(path, agent.token, key, body, other);
    expect(replayed.status).toBe(200);
    expect(replayed.body.data).toEqual(taken.body.data);
  });

  it('sweeps keys past their 24 hours; the key then acts again', async () => {
    const { tenantId, agent, conversationId } = await agentWithConversation();
    const key = randomUUID();
    const path = `/api/agent/conversations/${conversationId}/messages`;
    expect((await post(path, agent.token, key, { text: 'Primero' })).status).toBe(200);
    const [kept] = await t.dataSource.query(
      `SELECT status_code, extract(epoch FROM expires_at - created_at)::int AS ttl FROM idempotency_keys WHERE tenant_id = $1 AND key = $2`,
      [tenantId, key],
    );
    expect(kept).toEqual({ status_code: 200, ttl: 24 * 60 * 60 });

    await t.dataSource.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE tenant_id = $1`, [tenantId]);
    expect(await t.app.get(IdempotencyService).sweep()).toBeGreaterThanOrEqual(1);
    expect(await t.dataSource.query(`SELECT 1 FROM idempotency_keys WHERE tenant_id = $1`, [tenantId])).toEqual([]);
    const again = await post(path, agent.token, key, { text: 'Primero' });
    expect(again.status).toBe(200);
    expect(again.headers[IDEMPOTENCY_REPLAYED_HEADER.toLowerCase()]).toBeUndefined();
    expect(
      await t.dataSource.query(`SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1 AND sender_kind = 'agent'`, [
        conversationId,
      ]),
    ).toEqual([{ n: 2 }]);
  });
});
