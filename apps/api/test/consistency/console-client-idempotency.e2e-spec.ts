import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_REPLAYED_HEADER, type ConversationView, type MessageView } from '@centralita/contracts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '../../../../test/support/eventually';
import { createCampaign, createLine, createStaff, createTenant, type StaffMember } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import { queueCustomer, tenantLog } from './consistency';

/**
 * The console's own client and desk calls (apps/web), run as jest's swc transform builds them. They
 * are bundler-resolved, DOM-typed TypeScript that this project's tsconfig does not compile, so
 * they are loaded untyped and described here by the part this suite uses.
 */
interface ConsoleClientModule {
  createApiClient(options: {
    baseUrl: string;
    fetch: typeof fetch;
    tokens: { getAccessToken(): string | null; getRefreshToken(): string | null; getUserId(): string | null; saveTokens(): void };
    sleep?: (ms: number) => Promise<void>;
  }): unknown;
}
interface DeskApiModule {
  createDeskApi(client: unknown): {
    close(conversationId: string, disposition: string): Promise<ConversationView>;
    send(conversationId: string, text: string, clientMessageId: string): Promise<MessageView>;
  };
}
const { createApiClient } = jest.requireActual<ConsoleClientModule>('../../../web/src/api/http-client');
const { createDeskApi } = jest.requireActual<DeskApiModule>('../../../web/src/desk/desk-api');

interface Passed {
  path: string;
  key: string | undefined;
  status: number;
  replayed: string | undefined;
  dropped: boolean;
}

/**
 * A proxy in front of the API that lets the first call matching `drop` reach the API and act, then
 * cuts the connection before its answer gets back: what a desk sees when the network fails after
 * the server committed.
 */
async function droppingProxy(target: string, drop: (method: string, path: string) => boolean) {
  const passed: Passed[] = [];
  let droppedOne = false;
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const shouldDrop = !droppedOne && drop(req.method ?? 'GET', req.url ?? '');
    if (shouldDrop) droppedOne = true;
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          passed.push({
            path: req.url ?? '',
            key: req.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()] as string | undefined,
            status: answer.statusCode ?? 0,
            replayed: answer.headers[IDEMPOTENCY_REPLAYED_HEADER.toLowerCase()] as string | undefined,
            dropped: shouldDrop,
          });
          if (shouldDrop) {
            res.socket?.destroy();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(chunks));
        });
      },
    );
    forward.on('error', () => res.socket?.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    passed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Issue 18: the console's own HTTP client and desk calls (apps/web) against the real API. A close
 * whose answer is lost is repeated with the same Idempotency-Key; the API gives back the first
 * close's answer, and the desk takes it as the success it was: one close, no "illegal transition".
 */
describe('the console client repeats a lost action with its key (real API)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  async function agentWithConversation(): Promise<{ tenantId: string; agent: StaffMember; conversationId: string }> {
    const tenant = await createTenant(t.dataSource);
    const line = await createLine(t.dataSource, tenant, 'Lost answers');
    const campaignId = await createCampaign(t.dataSource, tenant, 2);
    const agent = await createStaff(t, tenant, 'AGENT', [line]);
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
    const conversationId = await queueCustomer(t, line, 'Grace');
    await eventually(async () => {
      const [row] = await t.dataSource.query(`SELECT status, agent_id FROM conversations WHERE id = $1`, [conversationId]);
      expect(row).toEqual({ status: 'Active', agent_id: agent.userId });
    });
    return { tenantId: tenant.client.id, agent, conversationId };
  }

  function deskThrough(baseUrl: string, agent: StaffMember) {
    const client = createApiClient({
      baseUrl,
      fetch: (input, init) => fetch(input, init),
      tokens: {
        getAccessToken: () => agent.token,
        getRefreshToken: () => null,
        getUserId: () => agent.userId,
        saveTokens: () => undefined,
      },
      sleep: async () => undefined,
    });
    return createDeskApi(client);
  }

  it('closes once and resolves with the replayed answer when the first answer is dropped', async () => {
    const { tenantId, agent, conversationId } = await agentWithConversation();
    const proxy = await droppingProxy(t.url, (method, path) => method === 'POST' && path.endsWith('/close'));
    try {
      const desk = deskThrough(proxy.url, agent);
      const closed = await desk.close(conversationId, 'solved');
      expect(closed).toMatchObject({ id: conversationId, status: 'Closed' });

      const tries = proxy.passed.filter((entry) => entry.path.endsWith('/close'));
      expect(tries).toHaveLength(2);
      expect(tries[0]).toMatchObject({ status: 200, dropped: true, replayed: undefined });
      expect(tries[1]).toMatchObject({ status: 200, dropped: false, replayed: 'true', key: tries[0].key });
      expect(tries[0].key).toBeTruthy();

      const log = await tenantLog(t.dataSource, tenantId);
      expect(log.filter((row) => row.entity_id === conversationId && row.event === 'conversation.closed')).toHaveLength(1);
      expect(log.filter((row) => row.entity_id === agent.userId && row.event === 'agent.conversationReleased')).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('stores a message once when the send answer is dropped, and the desk gets the stored message', async () => {
    const { agent, conversationId } = await agentWithConversation();
    const proxy = await droppingProxy(t.url, (method, path) => method === 'POST' && path.endsWith('/messages'));
    try {
      const desk = deskThrough(proxy.url, agent);
      const sent = await desk.send(conversationId, 'Un momento, por favor', 'm-console-lost-answer');
      const stored = await t.dataSource.query(`SELECT id FROM messages WHERE conversation_id = $1 AND sender_kind = 'agent'`, [
        conversationId,
      ]);
      expect(stored).toEqual([{ id: sent.id }]);
      const tries = proxy.passed.filter((entry) => entry.path.endsWith('/messages'));
      expect(tries.map((entry) => [entry.dropped, entry.replayed])).toEqual([
        [true, undefined],
        [false, 'true'],
      ]);
      expect(new Set(tries.map((entry) => entry.key)).size).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});
