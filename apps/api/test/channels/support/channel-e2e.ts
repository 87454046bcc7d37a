import { randomBytes } from 'node:crypto';
import type { AgentView, ChannelAccountInput, ChannelAccountView, ConversationView, MessageView } from '@centralita/contracts';
import type { DataSource } from 'typeorm';
import type { ConfigOverrides } from '../../../src/config/app-config';
import { createUser, type TestTenant } from '../../support/factories';
import { spawnChild, type ChildWorker } from '../../support/processes';
import {
  connectStaff,
  createCampaign,
  createLine,
  createStaff,
  createTenant,
  data,
  record,
  type Received,
  type StaffMember,
  type StaffSocket,
} from '../../support/realtime';
import { createSuiteDatabase, type SuiteDatabase } from '../../support/suite-database';
import { bearer, login, startTestApp, type TestApp } from '../../support/test-app';

/**
 * Shared harness of the platform channel suites (real PostgreSQL, Redis, API, the worker's
 * channel-send processor, and a provider fake):
 *
 *   const suite = channelSuite('whatsapp', { META_GRAPH_URL: fake.url, META_GRAPH_VERSION: fake.graphVersion });
 *   const t = await startChannelApi(suite);               // the API, its adapters pointing at the fake
 *   const worker = await startChannelSendWorker(suite);   // the real worker, same prefix and endpoints
 *   const desk = await channelDesk(t);                    // tenant, line, admin, an agent serving the line
 *   const account = await connectChannelAccount(t, desk, { kind, name, externalAccountId, secrets, settings });
 *   fake.setWebhookUrl(webhookUrlOf(t, account));
 *   const online = await agentOnline(t, desk);            // staff socket recorded, presence logged in
 *   ... finally: online.socket.close(); await stopChild(worker); await t.close();
 *
 * Each suite is a deployment of its own: its OWN queue prefix (Redis queues and socket stream) and
 * its own database (channelSuiteDatabase). channel-inbound jobs run on any API process of the
 * prefix and channel-send jobs on any worker of it, whose adapters point at that process's own
 * fakes; on the run's shared prefix another suite's processes would take them, and on the shared
 * database another suite's routing sweeper and outbox poller would act on its rows.
 */
export interface ChannelSuite {
  queuePrefix: string;
  /** The provider endpoints (META_GRAPH_URL, TELEGRAM_API_URL, X_API_URL, …) and switches (CHANNEL_X_ENABLED) of the suite. */
  env: Record<string, string>;
  /** The suite's database, made on first use (channelSuiteDatabase). */
  database?: Promise<SuiteDatabase>;
}

export function channelSuite(name: string, env: Record<string, string>): ChannelSuite {
  return { queuePrefix: `${process.env.QUEUE_PREFIX ?? 'ct'}-${name}-${randomBytes(3).toString('hex')}`, env };
}

/**
 * The suite's own database (suite-database.ts), made on first use and made the test file's
 * DATABASE_URL (jest gives each file its own process.env): every process the file starts from then
 * on — the harness's, and children or data sources a suite starts itself — uses it. A suite that
 * starts a child before its first API awaits this first. Dropped by the run's teardown (an API of
 * the suite may be stopped and started again, so no one close can drop it).
 */
export function channelSuiteDatabase(suite: ChannelSuite): Promise<SuiteDatabase> {
  suite.database ??= createSuiteDatabase().then((database) => {
    process.env.DATABASE_URL = database.url;
    return database;
  });
  return suite.database;
}

/**
 * The API with the suite's prefix and provider endpoints. The adapters read the endpoints when the
 * application is built, and switches (CHANNEL_X_ENABLED) on every request: the suite's env is put
 * in process.env for the rest of the test file (jest gives each test file its own process.env, so
 * it reaches no other suite), which also lets several processes start at once.
 */
export async function startChannelApi(suite: ChannelSuite, config: ConfigOverrides = {}): Promise<TestApp> {
  Object.assign(process.env, suite.env);
  const database = await channelSuiteDatabase(suite);
  return startTestApp({ queuePrefix: suite.queuePrefix, databaseUrl: database.url, ...config });
}

/** The real worker in a child process, taking the suite's channel-send jobs and calling its fakes. */
export async function startChannelSendWorker(suite: ChannelSuite, env: Record<string, string> = {}): Promise<ChildWorker> {
  const database = await channelSuiteDatabase(suite);
  const worker = spawnChild('../channels/support/channel-send-worker.child.ts', {
    ...process.env,
    NODE_ENV: 'test',
    QUEUE_PREFIX: suite.queuePrefix,
    DATABASE_URL: database.url,
    ...suite.env,
    ...env,
  });
  try {
    await worker.ready;
  } catch (error) {
    worker.child.kill('SIGKILL');
    throw error;
  }
  return worker;
}

/** SIGTERM (the worker finishes its active jobs), SIGKILL if it is still there after 5 s. */
export async function stopChild(worker: ChildWorker | undefined): Promise<void> {
  if (!worker || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  worker.child.kill('SIGTERM');
  const stuck = setTimeout(() => worker.child.kill('SIGKILL'), 5000);
  await worker.exited;
  clearTimeout(stuck);
}

/** A tenant ready to take a channel's customers: its line, an administrator, and an agent serving the line. */
export interface ChannelDesk {
  tenant: TestTenant;
  tenantId: string;
  lineId: string;
  adminToken: string;
  agent: StaffMember;
  /** The campaign the agent logs in under (its capacity: conversations held at once). */
  campaignId: string;
}

export async function channelDesk(t: TestApp, { capacity = 5 }: { capacity?: number } = {}): Promise<ChannelDesk> {
  const tenant = await createTenant(t.dataSource);
  const lineId = await createLine(t.dataSource, tenant, `Channel ${randomBytes(4).toString('hex')}`);
  const admin = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
  const agent = await createStaff(t, tenant, 'AGENT', [lineId]);
  const campaignId = await createCampaign(t.dataSource, tenant, capacity);
  return {
    tenant,
    tenantId: tenant.client.id,
    lineId,
    adminToken: (await login(t, admin.email, admin.password)).accessToken,
    agent,
    campaignId,
  };
}

/** Connects an account through the accounts API (as the console does), on the desk's line. */
export async function connectChannelAccount(
  t: TestApp,
  desk: ChannelDesk,
  input: Omit<ChannelAccountInput, 'attentionLineId'> & { attentionLineId?: string },
): Promise<ChannelAccountView> {
  return data<ChannelAccountView>(
    await t
      .http()
      .post('/api/channel-accounts')
      .set(bearer(desk.adminToken))
      .send({ attentionLineId: desk.lineId, ...input }),
  );
}

/** The account's webhook on this API process (the view's webhookUrl names the public base URL instead). */
export function webhookUrlOf(t: TestApp, account: Pick<ChannelAccountView, 'id' | 'kind'>): string {
  return `${t.url}/api/channels/${account.kind}/${account.id}/webhook`;
}

/** The desk's agent on line: a recorded staff socket, then presence login (routing hands them conversations). */
export async function agentOnline(t: TestApp, desk: ChannelDesk): Promise<{ socket: StaffSocket; received: Received[] }> {
  const socket = await connectStaff(t.url, desk.agent.token);
  const received = record(socket);
  data<AgentView>(await t.http().post('/api/agent/presence/login').set(bearer(desk.agent.token)).send({ campaignId: desk.campaignId }));
  return { socket, received };
}

export interface AccountConversation {
  id: string;
  status: string;
  channel: string;
  agent_id: string | null;
  attention_line_id: string | null;
  contact: string;
}

/** The conversations of one channel account (other suites share the database). */
export async function accountConversations(dataSource: DataSource, accountId: string): Promise<AccountConversation[]> {
  return (await dataSource.query(
    `SELECT c.id, c.status, c.channel, c.agent_id, c.attention_line_id, k.external_id AS contact
     FROM conversations c JOIN contacts k ON k.id = c.contact_id
     WHERE c.channel_account_id = $1 ORDER BY c.created_at`,
    [accountId],
  )) as AccountConversation[];
}

/** The states a conversation went through, in order (the machine's append-only transition log). */
export async function conversationStates(dataSource: DataSource, conversationId: string): Promise<string[]> {
  const rows = (await dataSource.query(
    `SELECT to_state FROM transition_log WHERE entity_type = 'conversation' AND entity_id = $1 ORDER BY version`,
    [conversationId],
  )) as { to_state: string }[];
  return rows.map((row) => row.to_state);
}

/** What one account stored: webhook deliveries, messages, conversations. */
export async function accountCounts(
  dataSource: DataSource,
  accountId: string,
): Promise<{ events: number; messages: number; conversations: number }> {
  const [row] = (await dataSource.query(
    `SELECT (SELECT count(*)::int FROM channel_events WHERE account_id = $1) AS events,
       (SELECT count(*)::int FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.channel_account_id = $2) AS messages,
       (SELECT count(*)::int FROM conversations WHERE channel_account_id = $2) AS conversations`,
    [accountId, accountId],
  )) as { events: number; messages: number; conversations: number }[];
  return row!;
}

/** The conversation's messages as the agent's desk reads them (REST). */
export async function conversationMessages(t: TestApp, token: string, conversationId: string): Promise<MessageView[]> {
  return data<MessageView[]>(await t.http().get(`/api/agent/conversations/${conversationId}/messages`).set(bearer(token)));
}

/** One message as the desk reads it. */
export async function messageById(t: TestApp, token: string, conversationId: string, messageId: string): Promise<MessageView> {
  const message = (await conversationMessages(t, token, conversationId)).find((one) => one.id === messageId);
  if (!message) throw new Error(`message ${messageId} is not in conversation ${conversationId}`);
  return message;
}

/** Every conversation.updated push of one conversation, in arrival order. */
export function conversationUpdates(received: Received[], conversationId: string): ConversationView[] {
  return received
    .filter((entry) => entry.event === 'conversation.updated' && (entry.data as ConversationView).id === conversationId)
    .map((entry) => entry.data as ConversationView);
}

/** Every message.updated push of one message, in arrival order. */
export function messageUpdates(received: Received[], messageId: string): MessageView[] {
  return received
    .filter((entry) => entry.event === 'message.updated' && (entry.data as MessageView).id === messageId)
    .map((entry) => entry.data as MessageView);
}

/** The agent's reply: text. */
export async function agentSends(t: TestApp, token: string, conversationId: string, text: string): Promise<MessageView> {
  return data<MessageView>(await t.http().post(`/api/agent/conversations/${conversationId}/messages`).set(bearer(token)).send({ text }));
}

/** The agent's reply: a file (the attachments upload endpoint), with an optional caption. */
export function uploadAttachment(
  t: TestApp,
  token: string,
  conversationId: string,
  file: { bytes: Buffer; fileName: string; mimeType: string; caption?: string },
) {
  const call = t.http().post(`/api/conversations/${conversationId}/attachments`).set(bearer(token));
  if (file.caption !== undefined) void call.field('caption', file.caption);
  return call.attach('file', file.bytes, { filename: file.fileName, contentType: file.mimeType });
}

/** A download as staff make it, the body as bytes whatever the type. */
export function downloadAttachment(t: TestApp, token: string, url: string) {
  return t
    .http()
    .get(url)
    .set(bearer(token))
    .buffer(true)
    .parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done(null, Buffer.concat(chunks)));
    });
}

/** The agent closes the conversation. */
export async function agentCloses(t: TestApp, token: string, conversationId: string): Promise<ConversationView> {
  return data<ConversationView>(
    await t.http().post(`/api/agent/conversations/${conversationId}/close`).set(bearer(token)).send({ disposition: 'resolved' }),
  );
}

/** A valid 1×1 PNG (signature, IHDR, IDAT, IEND with their CRCs): passes the platform's content checks and the providers' type checks. */
export const TINY_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f00050001ff' +
    '89993d1d0000000049454e44ae426082',
  'hex',
);
