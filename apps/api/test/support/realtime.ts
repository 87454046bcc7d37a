import {
  SOCKET_NAMESPACES,
  STAFF_BATCH_AUTH,
  type Envelope,
  type StaffClientEvents,
  type StaffServerEvents,
  type VisitorClientEvents,
  type VisitorServerEvents,
} from '@centralita/contracts';
import { randomUUID } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import type { DataSource } from 'typeorm';
import { MachineHostService } from '../../src/modules/machine-host/machine-host.service';
import { createTenant, createUser, type TestTenant } from './factories';
import { login, type TestApp } from './test-app';

export type StaffSocket = Socket<StaffServerEvents, StaffClientEvents>;
export type VisitorSocket = Socket<VisitorServerEvents, VisitorClientEvents>;

export interface Received {
  event: string;
  data: unknown;
}

/** Every event a socket receives, in arrival order. */
export function record(socket: Socket): Received[] {
  const received: Received[] = [];
  socket.onAny((event: string, data: unknown) => received.push({ event, data }));
  return received;
}

function connect<T extends Socket>(url: string, namespace: string, token: string, auth: Record<string, unknown> = {}): Promise<T> {
  const socket = io(`${url}${namespace}`, {
    auth: { ...auth, token },
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
  }) as T;
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

export const connectStaff = (url: string, token: string) => connect<StaffSocket>(url, SOCKET_NAMESPACES.staff, token);
/** A staff socket as the console opens it: the supervisor stream in batches (STAFF_BATCH_AUTH). */
export const connectBatchedStaff = (url: string, token: string) =>
  connect<StaffSocket>(url, SOCKET_NAMESPACES.staff, token, { [STAFF_BATCH_AUTH]: true });
export const connectVisitor = (url: string, token: string) => connect<VisitorSocket>(url, SOCKET_NAMESPACES.visitor, token);

export async function createLine(
  dataSource: DataSource,
  tenant: TestTenant,
  name: string,
  settings: { pollId?: string | null; campaignId?: string | null; policy?: string } = {},
) {
  const [line] = await dataSource.query(
    `INSERT INTO attention_lines (client_id, name, type, channel, poll_id, campaign_id) VALUES ($1, $2, 'inbound', 'WebChat', $3, $4) RETURNING id`,
    [tenant.client.id, name, settings.pollId ?? null, settings.campaignId ?? null],
  );
  await dataSource.query(`INSERT INTO attention_line_routing (attention_line_id, tenant_id, routing_policy) VALUES ($1, $2, $3)`, [
    line.id,
    tenant.client.id,
    settings.policy ?? 'longest-idle',
  ]);
  return line.id as string;
}

/** A post-conversation poll with a 0-10 scale question and a free-text one; answers its ids. */
export async function createPoll(dataSource: DataSource, tenant: TestTenant) {
  const [poll] = await dataSource.query(
    `INSERT INTO polls (client_id, name, active, lower_rank, upper_rank) VALUES ($1, 'Satisfaction', true, 50, 50) RETURNING id`,
    [tenant.client.id],
  );
  const [scale, comment] = await dataSource.query(
    `INSERT INTO poll_questions (poll_id, client_id, position, text, response_type, options)
     VALUES ($1, $2, 1, 'How likely are you to recommend us?', 'scale', '{}'), ($1, $2, 2, 'Anything else?', 'text', '{}')
     RETURNING id`,
    [poll.id, tenant.client.id],
  );
  return { pollId: poll.id as string, scaleQuestionId: scale.id as string, textQuestionId: comment.id as string };
}

export async function createCampaign(dataSource: DataSource, tenant: TestTenant, allowedChatsPerAgent: number): Promise<string> {
  const [campaign] = await dataSource.query(
    `INSERT INTO campaigns (client_id, name, description, from_date, to_date, identifier, allowed_chats_per_agent)
     VALUES ($1, 'Campaign', 'test', '2025-01-01', '2035-01-01', $2, $3) RETURNING id`,
    [tenant.client.id, `C${Math.floor(Math.random() * 1e6)}`, allowedChatsPerAgent],
  );
  return campaign.id as string;
}

export interface StaffMember {
  userId: string;
  token: string;
}

export async function createStaff(t: TestApp, tenant: TestTenant, role: 'AGENT' | 'SUPER', lines: string[] = []): Promise<StaffMember> {
  const { user, email, password } = await createUser(t.dataSource, tenant, { role });
  for (const lineId of lines) {
    await t.dataSource.query(`INSERT INTO agent_attention_lines (user_id, attention_line_id, tenant_id) VALUES ($1, $2, $3)`, [
      user.id,
      lineId,
      tenant.client.id,
    ]);
  }
  const session = await login(t, email, password);
  return { userId: user.id, token: session.accessToken };
}

export { createTenant };

/** A web-chat conversation written straight through the host (Transitory, version 1), for tests that skip the visitor API. */
export async function openConversation(t: TestApp, tenant: TestTenant, entryLineId: string, customerName = 'C'): Promise<string> {
  const host = t.app.get(MachineHostService);
  const id = randomUUID();
  await host.transaction(async (manager, outbox) => {
    const created = await host.createConversation(
      manager,
      { id, tenantId: tenant.client.id, channel: 'webchat', entryLineId, customerName, customerEmail: null, visitorId: null },
      { kind: 'customer' },
    );
    outbox.push(...created.outboxIds);
  });
  return id;
}

export function data<T>(response: { status: number; body: unknown }): T {
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status} ${JSON.stringify(response.body)}`);
  return (response.body as Envelope<T>).data as T;
}
