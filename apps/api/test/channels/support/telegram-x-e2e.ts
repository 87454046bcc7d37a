import { randomBytes, randomUUID } from 'node:crypto';
import type { ChannelAccountView, Envelope, MessageView } from '@centralita/contracts';
import request from 'supertest';
import { eventually } from '../../../../../test/support/eventually';
import { createUser, type TestTenant } from '../../support/factories';
import { spawnChild, type ChildWorker } from '../../support/processes';
import { createCampaign, createLine, createStaff, createTenant, data, type StaffMember } from '../../support/realtime';
import { createSuiteDatabase } from '../../support/suite-database';
import { bearer, login, startTestApp, type TestApp } from '../../support/test-app';

/**
 * The platform around one provider fake, as the Telegram and X end-to-end suites need it: API
 * process A in the test (so a suite can read its database and flip its switches), API process B
 * and the real worker as child processes, all on a queue prefix of the suite's own (another
 * suite's worker never takes these sends, nor this worker theirs). The provider URLs go in the
 * environment before anything starts: every process builds its adapters from it.
 */
export interface ChannelStack {
  a: TestApp;
  /** The second API process (a child), for deliveries that reach two processes at once. */
  urlB: string;
  close(): Promise<void>;
}

/** Two API processes and a worker compile and boot in parallel: slower than one suite's tests on a busy machine. */
export const STACK_START_MS = 150_000;

export async function startChannelStack(env: Record<string, string>): Promise<ChannelStack> {
  const prefix = `${process.env.QUEUE_PREFIX ?? 'ct'}-${randomBytes(3).toString('hex')}`;
  // A deployment of its own (queue prefix and database, see suite-database.ts): no other suite's
  // process takes its jobs, routes its customers or delivers its outbox rows.
  const database = await createSuiteDatabase();
  Object.assign(process.env, env);
  const childEnv = { ...process.env, NODE_ENV: 'test', QUEUE_PREFIX: prefix, DATABASE_URL: database.url };
  const children: ChildWorker[] = [];
  const stop = async () => {
    for (const child of children) {
      if (child.child.exitCode === null && child.child.signalCode === null) {
        child.child.kill('SIGTERM');
        await child.exited;
      }
    }
  };
  children.push(spawnChild('api.child.ts', childEnv));
  children.push(spawnChild('../channels/support/channel-send-worker.child.ts', childEnv));
  const started = startTestApp({ queuePrefix: prefix, databaseUrl: database.url });
  const results = await Promise.allSettled([started, ...children.map((child) => child.ready)]);
  const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure) {
    await stop();
    await started.then((app) => app.close()).catch(() => undefined);
    await database.drop();
    throw failure.reason;
  }
  const a = await started;
  const urlB = /listening (\S+)/.exec(children[0]!.output())![1]!;
  return {
    a,
    urlB,
    close: async () => {
      await stop();
      await a.close();
      await database.drop();
    },
  };
}

/** A tenant with an attention line, its administrator, and an agent logged in and available on it. */
export interface ChannelTenant {
  tenant: TestTenant;
  tenantId: string;
  lineId: string;
  admin: string;
  agent: StaffMember;
}

export async function channelTenant(t: TestApp): Promise<ChannelTenant> {
  const tenant = await createTenant(t.dataSource);
  const tenantId = tenant.client.id;
  // Five chats at once, the most a campaign allows: suites close each conversation when done (closeHeld).
  const campaignId = await createCampaign(t.dataSource, tenant, 5);
  const lineId = await createLine(t.dataSource, tenant, `Channel ${randomUUID().slice(0, 8)}`, { campaignId });
  const agent = await createStaff(t, tenant, 'AGENT', [lineId]);
  await t.dataSource.query(`INSERT INTO agent_campaigns (user_id, campaign_id, tenant_id) VALUES ($1, $2, $3)`, [
    agent.userId,
    campaignId,
    tenantId,
  ]);
  const created = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
  const admin = (await login(t, created.email, created.password)).accessToken;
  // Logging in to the campaign makes the agent available: conversations of the line go to it.
  const presence = data<{ status: string }>(await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }));
  if (presence.status !== 'available') throw new Error(`the agent is ${presence.status} after logging in`);
  return { tenant, tenantId, lineId, admin, agent };
}

export async function connectAccount(t: TestApp, who: ChannelTenant, input: Record<string, unknown>): Promise<ChannelAccountView> {
  const response = await t
    .http()
    .post('/api/channel-accounts')
    .set(bearer(who.admin))
    .send({ name: 'Account', attentionLineId: who.lineId, ...input });
  if (response.status !== 200) throw new Error(`connecting the account failed: ${response.status} ${JSON.stringify(response.body)}`);
  return (response.body as Envelope<ChannelAccountView>).data!;
}

/** The webhook URL of an account on a given API process (the account view's uses PUBLIC_URL). */
export const webhookUrlOn = (baseUrl: string, account: Pick<ChannelAccountView, 'id' | 'kind'>) =>
  `${baseUrl}/api/channels/${account.kind}/${account.id}/webhook`;

export interface StoredConversation {
  id: string;
  status: string;
  agent_id: string | null;
  contact_id: string;
  external_id: string;
  opted_out_at: Date | null;
  opt_out_reason: string | null;
}

/** Conversations of one account and one customer, oldest first (the shared database holds other suites' rows). */
export async function conversationsOf(t: TestApp, accountId: string, externalId: string): Promise<StoredConversation[]> {
  return (await t.dataSource.query(
    `SELECT c.id, c.status, c.agent_id, k.id AS contact_id, k.external_id, k.opted_out_at, k.opt_out_reason
       FROM conversations c JOIN contacts k ON k.id = c.contact_id
      WHERE c.channel_account_id = $1 AND k.external_id = $2 ORDER BY c.created_at`,
    [accountId, externalId],
  )) as StoredConversation[];
}

export interface StoredMessage {
  id: string;
  sender_kind: string;
  text: string;
  external_id: string | null;
  delivery_status: string | null;
  provider_message_id: string | null;
  delivery_error: string | null;
}

export async function messagesOf(t: TestApp, conversationId: string): Promise<StoredMessage[]> {
  return (await t.dataSource.query(
    `SELECT id, sender_kind, text, external_id, delivery_status, provider_message_id, delivery_error
       FROM messages WHERE conversation_id = $1 ORDER BY sequence`,
    [conversationId],
  )) as StoredMessage[];
}

/** Waits until the customer's conversation is queued and then answered by the suite's agent: its id. */
export async function answeredConversation(t: TestApp, who: ChannelTenant, accountId: string, externalId: string): Promise<string> {
  return eventually(
    async () => {
      const conversations = await conversationsOf(t, accountId, externalId);
      expect(conversations).toHaveLength(1);
      expect(conversations[0]).toMatchObject({ status: 'Active', agent_id: who.agent.userId });
      return conversations[0]!.id;
    },
    { timeoutMs: 15_000 },
  );
}

/** What the agent's desk lists for a conversation (the agent's own API, not the database). */
export async function deskMessages(t: TestApp, who: ChannelTenant, conversationId: string): Promise<MessageView[]> {
  return data<MessageView[]>(await t.http().get(`/api/agent/conversations/${conversationId}/messages`).set(bearer(who.agent.token)));
}

/** The agent closes every conversation it holds, freeing its chat slots for the next test. */
export async function closeHeld(t: TestApp, who: ChannelTenant): Promise<void> {
  const held = data<{ id: string; status: string }[]>(await t.http().get('/api/agent/conversations').set(bearer(who.agent.token)));
  for (const conversation of held.filter((one) => one.status === 'Active')) {
    data(
      await t.http().post(`/api/agent/conversations/${conversation.id}/close`).set(bearer(who.agent.token)).send({ disposition: 'done' }),
    );
  }
}

export const agentSends = (t: TestApp, who: ChannelTenant, conversationId: string, text: string) =>
  t.http().post(`/api/agent/conversations/${conversationId}/messages`).set(bearer(who.agent.token)).send({ text });

export const agentSendsFile = (
  t: TestApp,
  who: ChannelTenant,
  conversationId: string,
  file: { bytes: Buffer; name: string; type: string },
  caption?: string,
) => {
  const call = t.http().post(`/api/conversations/${conversationId}/attachments`).set(bearer(who.agent.token));
  if (caption) void call.field('caption', caption);
  return call.attach('file', file.bytes, { filename: file.name, contentType: file.type });
};

/** Waits for an agent message's delivery status (the worker writes it). */
export async function deliveryOf(t: TestApp, messageId: string, status: string, timeoutMs = 15_000): Promise<StoredMessage> {
  return eventually(
    async () => {
      const [row] = (await t.dataSource.query(
        `SELECT id, sender_kind, text, external_id, delivery_status, provider_message_id, delivery_error FROM messages WHERE id = $1`,
        [messageId],
      )) as StoredMessage[];
      expect(row?.delivery_status).toBe(status);
      return row!;
    },
    { timeoutMs },
  );
}

/** The whole body of a download, as bytes. */
export const downloadBytes = (baseUrl: string, path: string, token: string) =>
  request(baseUrl)
    .get(path)
    .set(bearer(token))
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
