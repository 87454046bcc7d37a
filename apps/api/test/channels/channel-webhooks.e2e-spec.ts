import { randomBytes, randomUUID } from 'node:crypto';
import type { ChannelAccountView, Envelope } from '@centralita/contracts';
import { eventually } from '../../../../test/support/eventually';
import { createUser, twoTenants, type TwoTenants } from '../support/factories';
import { connectStaff, createLine, record } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import { installTestAdapter, signTestBody, type TestWebhookBody } from './support/test-adapter';

/**
 * The platform side of messaging channels over real PostgreSQL and Redis, with a provider-neutral
 * test adapter in place of the facebook kind's (support/test-adapter.ts): accounts, the webhook
 * (raw bytes verified before anything is stored), and the processing queue (messages through the
 * intake and into LiningUp, receipts, opt-outs). Every check reads the database, filtered by this
 * suite's own tenant and account ids (other suites share the database).
 */
const KIND = 'facebook';
const SECRET = 'app-secret-of-the-test-page';

describe('channel accounts and webhooks', () => {
  let a: TestApp;
  let b: TestApp;
  let tenants: TwoTenants;
  let lineA: string;
  let lineB: string;

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
    installTestAdapter(a, KIND);
    installTestAdapter(b, KIND);
    tenants = await twoTenants(a);
    lineA = await createLine(a.dataSource, tenants.tenantA, `Channels ${randomUUID().slice(0, 8)}`);
    lineB = await createLine(a.dataSource, tenants.tenantB, `Channels ${randomUUID().slice(0, 8)}`);
  });
  afterAll(() => Promise.all([a.close(), b.close()]));

  const api = (t: TestApp = a) => t.http();
  async function connect(over: Record<string, unknown> = {}): Promise<ChannelAccountView> {
    const response = await api()
      .post('/api/channel-accounts')
      .set(bearer(tenants.adminA))
      .send({
        kind: KIND,
        name: 'Test page',
        externalAccountId: `page-${randomUUID()}`,
        attentionLineId: lineA,
        secrets: { appSecret: SECRET },
        ...over,
      });
    expect(response.status).toBe(200);
    return (response.body as Envelope<ChannelAccountView>).data!;
  }

  const webhookPath = (account: Pick<ChannelAccountView, 'id'>) => `/api/channels/${KIND}/${account.id}/webhook`;
  function post(t: TestApp, account: Pick<ChannelAccountView, 'id'>, body: TestWebhookBody | string, signature?: string | null) {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    const request = t.http().post(webhookPath(account)).set('Content-Type', 'application/json');
    if (signature !== null) request.set('X-Test-Signature', signature ?? signTestBody(raw, SECRET));
    return request.send(raw);
  }
  const count = async (sql: string, params: unknown[]) => ((await a.dataSource.query(sql, params)) as { n: number }[])[0].n;
  const eventsOf = (accountId: string) => count(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1`, [accountId]);
  const conversationsOf = async (accountId: string) =>
    (await a.dataSource.query(
      `SELECT c.id, c.status, c.channel, k.external_id AS contact FROM conversations c JOIN contacts k ON k.id = c.contact_id
       WHERE c.channel_account_id = $1 ORDER BY c.created_at`,
      [accountId],
    )) as { id: string; status: string; channel: string; contact: string }[];
  const messagesOf = async (accountId: string) =>
    (await a.dataSource.query(
      `SELECT m.conversation_id, m.sequence, m.text, m.external_id FROM messages m
       JOIN conversations c ON c.id = m.conversation_id WHERE c.channel_account_id = $1 ORDER BY m.created_at, m.sequence`,
      [accountId],
    )) as { conversation_id: string; sequence: number; text: string; external_id: string }[];
  const message = (id: string, from: string, text: string, at = new Date()) => ({
    type: 'message' as const,
    id,
    from,
    name: `Customer ${from}`,
    text,
    at: at.toISOString(),
  });

  describe('accounts API', () => {
    it('connects an account: secrets encrypted at rest and never answered; webhook URL and verify token to paste', async () => {
      const account = await connect({ settings: { region: 'eu' } });
      expect(account).toMatchObject({
        kind: KIND,
        attentionLineId: lineA,
        settings: { region: 'eu' },
        secretsSet: ['appSecret'],
        enabled: true,
      });
      expect(account.webhookUrl).toMatch(new RegExp(`/api/channels/${KIND}/${account.id}/webhook$`));
      expect(account.verifyToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const listed = await api().get('/api/channel-accounts').set(bearer(tenants.adminA));
      expect(JSON.stringify(listed.body)).not.toContain(SECRET);
      expect((listed.body as Envelope<ChannelAccountView[]>).data!.map((one) => one.id)).toContain(account.id);
      const [stored] = (await a.dataSource.query(`SELECT secrets FROM channel_accounts WHERE id = $1`, [account.id])) as {
        secrets: Record<string, string>;
      }[];
      expect(stored.secrets.appSecret).toMatch(/^v1\./);
      expect(stored.secrets.appSecret).not.toContain(SECRET);
    });

    it('lists the kinds with an adapter and their credentials', async () => {
      const response = await api().get('/api/channel-kinds').set(bearer(tenants.adminA));
      expect(response.status).toBe(200);
      const kinds = (response.body as Envelope<{ kind: string; secrets: string[]; enabled: boolean }[]>).data!;
      expect(kinds.find((kind) => kind.kind === KIND)).toMatchObject({ secrets: ['appSecret'], enabled: true });
    });

    it.each([
      [{ kind: 'carrier-pigeon' }, 'kind'],
      [{ secrets: {} }, 'secrets.appSecret'],
      [{ secrets: { appSecret: SECRET, password: 'x' } }, 'secrets.password'],
      [{ settings: { region: 5 } }, 'settings.region'],
      [{ name: '' }, 'name'],
      [{ externalAccountId: 'x'.repeat(201) }, 'externalAccountId'],
      [{ attentionLineId: 'not-a-uuid' }, 'attentionLineId'],
    ])('refuses %j with a 400 naming %s', async (over, field) => {
      const response = await api()
        .post('/api/channel-accounts')
        .set(bearer(tenants.adminA))
        .send({
          kind: KIND,
          name: 'Page',
          externalAccountId: `page-${randomUUID()}`,
          attentionLineId: lineA,
          secrets: { appSecret: SECRET },
          ...over,
        });
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body)).toContain(field);
    });

    it("refuses another tenant's line (400) and a provider account already connected (409)", async () => {
      const otherLine = await api()
        .post('/api/channel-accounts')
        .set(bearer(tenants.adminA))
        .send({
          kind: KIND,
          name: 'Page',
          externalAccountId: `page-${randomUUID()}`,
          attentionLineId: lineB,
          secrets: { appSecret: SECRET },
        });
      expect(otherLine.status).toBe(400);
      expect(JSON.stringify(otherLine.body)).toContain('attentionLineId');
      const first = await connect();
      const again = await api()
        .post('/api/channel-accounts')
        .set(bearer(tenants.adminB))
        .send({
          kind: KIND,
          name: 'Page',
          externalAccountId: first.externalAccountId,
          attentionLineId: lineB,
          secrets: { appSecret: SECRET },
        });
      expect(again.status).toBe(409);
    });

    it("answers 404 for another tenant's account and 403 to an agent (who still reads the channel kinds)", async () => {
      const account = await connect();
      for (const call of [
        api().get(`/api/channel-accounts/${account.id}`),
        api().put(`/api/channel-accounts/${account.id}`).send({ name: 'Mine now' }),
        api().delete(`/api/channel-accounts/${account.id}`),
        api().post(`/api/channel-accounts/${account.id}/test`),
      ]) {
        expect((await call.set(bearer(tenants.adminB))).status).toBe(404);
      }
      expect((await api().get('/api/channel-accounts').set(bearer(tenants.agentA))).status).toBe(403);
      expect((await api().post('/api/channel-accounts').set(bearer(tenants.agentA)).send({})).status).toBe(403);
      // The capabilities are not secret: the agent's composer checks attachments against them.
      expect((await api().get('/api/channel-kinds').set(bearer(tenants.agentA))).status).toBe(200);
      const [row] = (await a.dataSource.query(`SELECT name, deleted_at FROM channel_accounts WHERE id = $1`, [account.id])) as {
        name: string;
        deleted_at: Date | null;
      }[];
      expect(row).toEqual({ name: 'Test page', deleted_at: null });
    });

    it("tests the connection: the provider's refusal is ok:false with its reason, and the check is kept", async () => {
      const account = await connect();
      const ok = await api().post(`/api/channel-accounts/${account.id}/test`).set(bearer(tenants.adminA));
      expect(ok.status).toBe(200);
      expect(ok.body.data).toEqual({ ok: true, name: `Test account ${account.externalAccountId}` });
      const changed = await api()
        .put(`/api/channel-accounts/${account.id}`)
        .set(bearer(tenants.adminA))
        .send({ secrets: { appSecret: 'bad' } });
      expect(changed.status).toBe(200);
      const refused = await api().post(`/api/channel-accounts/${account.id}/test`).set(bearer(tenants.adminA));
      expect(refused.status).toBe(200);
      expect(refused.body.data).toEqual({ ok: false, message: 'Error validating access token: Session has expired' });
      const view = (await api().get(`/api/channel-accounts/${account.id}`).set(bearer(tenants.adminA))).body.data as ChannelAccountView;
      expect(view.lastCheck).toMatchObject({ ok: false, message: 'Error validating access token: Session has expired' });
      const templates = await api().get(`/api/channel-accounts/${account.id}/templates`).set(bearer(tenants.adminA));
      expect(templates.status).toBe(400);
    });
  });

  describe('webhook', () => {
    it('refuses a forged or missing signature with 401 and stores nothing', async () => {
      const account = await connect();
      const body: TestWebhookBody = { events: [message(`m-${randomUUID()}`, 'u1', 'hola')] };
      expect((await post(a, account, body, 'f'.repeat(64))).status).toBe(401);
      expect((await post(a, account, body, null)).status).toBe(401);
      const otherSecret = signTestBody(JSON.stringify(body), 'another secret');
      expect((await post(a, account, body, otherSecret)).status).toBe(401);
      expect(await eventsOf(account.id)).toBe(0);
      const [touched] = (await a.dataSource.query(`SELECT last_event_at FROM channel_accounts WHERE id = $1`, [account.id])) as {
        last_event_at: Date | null;
      }[];
      expect(touched.last_event_at).toBeNull();
    });

    it("answers the provider's handshake with its challenge, and 403 to a wrong verify token", async () => {
      const account = await connect();
      const good = await api()
        .get(webhookPath(account))
        .query({ 'hub.mode': 'subscribe', 'hub.verify_token': account.verifyToken, 'hub.challenge': '1158201444' });
      expect(good.status).toBe(200);
      expect(good.text).toBe('1158201444');
      expect(good.headers['content-type']).toMatch(/^text\/plain/);
      const bad = await api()
        .get(webhookPath(account))
        .query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'guess', 'hub.challenge': '1' });
      expect(bad.status).toBe(403);
    });

    it('answers 404 for an unknown, deleted, disabled or other-kind account, storing nothing', async () => {
      const account = await connect();
      const body: TestWebhookBody = { events: [message(`m-${randomUUID()}`, 'u1', 'hola')] };
      expect((await post(a, { id: randomUUID() }, body)).status).toBe(404);
      expect((await a.http().post(`/api/channels/whatsapp/${account.id}/webhook`).send('{}')).status).toBe(404);
      expect((await a.http().post(`/api/channels/${KIND}/not-a-uuid/webhook`).send('{}')).status).toBe(404);
      await api().put(`/api/channel-accounts/${account.id}`).set(bearer(tenants.adminA)).send({ enabled: false }).expect(200);
      expect((await post(a, account, body)).status).toBe(404);
      const deleted = await connect();
      await api().delete(`/api/channel-accounts/${deleted.id}`).set(bearer(tenants.adminA)).expect(200);
      expect((await post(a, deleted, body)).status).toBe(404);
      expect(await eventsOf(account.id)).toBe(0);
      expect(await eventsOf(deleted.id)).toBe(0);
    });

    it('takes an edit of the account at the next delivery on every process: rotated secret, disabled, deleted', async () => {
      const account = await connect();
      const body = (text: string): TestWebhookBody => ({ events: [message(`m-${randomUUID()}`, 'u1', text)] });
      // Both processes have taken deliveries for the account before it changes.
      expect((await post(a, account, body('uno'))).status).toBe(200);
      expect((await post(b, account, body('dos'))).status).toBe(200);
      const rotated = 'the rotated app secret';
      await api()
        .put(`/api/channel-accounts/${account.id}`)
        .set(bearer(tenants.adminA))
        .send({ secrets: { appSecret: rotated } })
        .expect(200);
      for (const t of [a, b]) {
        const old = body('firmado con el secreto anterior');
        expect((await post(t, account, old, signTestBody(JSON.stringify(old), SECRET))).status).toBe(401);
        const current = body('firmado con el secreto nuevo');
        expect((await post(t, account, current, signTestBody(JSON.stringify(current), rotated))).status).toBe(200);
      }
      expect(await eventsOf(account.id)).toBe(4);
      await api().put(`/api/channel-accounts/${account.id}`).set(bearer(tenants.adminA)).send({ enabled: false }).expect(200);
      for (const t of [a, b]) {
        const late = body('después de desactivarla');
        expect((await post(t, account, late, signTestBody(JSON.stringify(late), rotated))).status).toBe(404);
      }
      await api().put(`/api/channel-accounts/${account.id}`).set(bearer(tenants.adminA)).send({ enabled: true }).expect(200);
      const again = body('otra vez activa');
      expect((await post(b, account, again, signTestBody(JSON.stringify(again), rotated))).status).toBe(200);
      await api().delete(`/api/channel-accounts/${account.id}`).set(bearer(tenants.adminA)).expect(200);
      for (const t of [a, b]) {
        const gone = body('después de borrarla');
        expect((await post(t, account, gone, signTestBody(JSON.stringify(gone), rotated))).status).toBe(404);
      }
      expect(await eventsOf(account.id)).toBe(5);
    });

    it('answers hostile bodies with 4xx, never 500: too large 413, unreadable but signed kept as failed', async () => {
      const account = await connect();
      const huge = JSON.stringify({ events: [], padding: 'x'.repeat(1024 * 1024) });
      expect((await post(a, account, huge)).status).toBe(413);
      const garbage = '{"events": [ not json \u0000';
      const response = await post(a, account, garbage);
      expect(response.status).toBe(200);
      await eventually(async () => {
        const [row] = (await a.dataSource.query(`SELECT processed_at, last_error FROM channel_events WHERE account_id = $1`, [
          account.id,
        ])) as {
          processed_at: Date | null;
          last_error: string | null;
        }[];
        expect(row.processed_at).not.toBeNull();
        expect(row.last_error).toMatch(/Unreadable webhook body/);
      });
      expect((await post(a, account, '', null)).status).toBe(401);
    });
  });

  describe('processing', () => {
    it('stores one delivery posted to two API processes at once and again 5 times: one event, one message, one conversation, queued', async () => {
      const account = await connect();
      const id = `m-${randomUUID()}`;
      const body: TestWebhookBody = { deliveryId: `d-${id}`, events: [message(id, 'customer-1', 'Hola, necesito ayuda')] };
      const first = await Promise.all([post(a, account, body), post(b, account, body)]);
      expect(first.map((response) => response.status)).toEqual([200, 200]);
      for (let i = 0; i < 5; i++) expect((await post(i % 2 ? a : b, account, body)).status).toBe(200);
      // Without a delivery id the same body is keyed by its hash: once as well.
      const hashed: TestWebhookBody = { events: body.events };
      await Promise.all([post(a, account, hashed), post(b, account, hashed)]);
      expect(await eventsOf(account.id)).toBe(2);
      await eventually(async () => {
        const conversations = await conversationsOf(account.id);
        expect(conversations).toHaveLength(1);
        expect(conversations[0]).toMatchObject({ status: 'LiningUp', channel: KIND, contact: 'customer-1' });
        expect(await messagesOf(account.id)).toEqual([
          expect.objectContaining({ text: 'Hola, necesito ayuda', external_id: id, sequence: 1 }),
        ]);
        expect(
          await count(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1 AND processed_at IS NULL`, [account.id]),
        ).toBe(0);
      });
      const [{ last_event_at: lastEventAt }] = (await a.dataSource.query(`SELECT last_event_at FROM channel_accounts WHERE id = $1`, [
        account.id,
      ])) as {
        last_event_at: Date | null;
      }[];
      expect(lastEventAt).not.toBeNull();
    });

    it('stores a burst once per delivery when deliveries share store statements, copies of one delivery in the same statement included', async () => {
      // Forty at once on one process: beyond the store statements in flight, deliveries share one
      // statement (NaturalBatcher), so a delivery and its copy can be rows of the same INSERT.
      const account = await connect();
      const bodies: TestWebhookBody[] = Array.from({ length: 20 }, (_, i) => {
        const id = `burst-${i}-${randomUUID()}`;
        return { deliveryId: `d-${id}`, events: [message(id, `burst-customer-${i % 5}`, `burst message ${i}`)] };
      });
      const answers = await Promise.all([...bodies, ...bodies].map((body) => post(a, account, body)));
      expect(answers.map((response) => response.status)).toEqual(answers.map(() => 200));
      expect(await eventsOf(account.id)).toBe(20);
      expect(
        await count(`SELECT count(*)::int AS n FROM outbox WHERE payload->'data'->>'eventId' = ANY($1)`, [
          ((await a.dataSource.query(`SELECT id::text FROM channel_events WHERE account_id = $1`, [account.id])) as { id: string }[]).map(
            (row) => row.id,
          ),
        ]),
      ).toBe(20);
      await eventually(async () => {
        expect((await conversationsOf(account.id)).map((c) => c.contact).sort()).toEqual([
          'burst-customer-0',
          'burst-customer-1',
          'burst-customer-2',
          'burst-customer-3',
          'burst-customer-4',
        ]);
        expect((await messagesOf(account.id)).map((m) => m.text).sort()).toEqual(bodies.map((_, i) => `burst message ${i}`).sort());
        expect(
          await count(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1 AND processed_at IS NULL`, [account.id]),
        ).toBe(0);
      });
    });

    it('takes every message of a batch: 3 messages from 2 contacts make 2 conversations with their messages in order', async () => {
      const account = await connect();
      const at = Date.now() - 5000;
      const body: TestWebhookBody = {
        events: [
          message('b-1', 'ana', 'first from Ana', new Date(at)),
          message('b-2', 'bob', 'first from Bob', new Date(at + 1)),
          message('b-3', 'ana', 'second from Ana', new Date(at + 2)),
        ],
      };
      expect((await post(a, account, body)).status).toBe(200);
      await eventually(async () => {
        const conversations = await conversationsOf(account.id);
        expect(conversations.map((c) => [c.contact, c.status]).sort()).toEqual([
          ['ana', 'LiningUp'],
          ['bob', 'LiningUp'],
        ]);
        const byConversation = new Map(conversations.map((c) => [c.id, c.contact]));
        const stored = (await messagesOf(account.id)).map((m) => [byConversation.get(m.conversation_id), m.sequence, m.text]);
        expect(stored.sort()).toEqual([
          ['ana', 1, 'first from Ana'],
          ['ana', 2, 'second from Ana'],
          ['bob', 1, 'first from Bob'],
        ]);
      });
    });

    it('moves delivery status only forward, keeps out-of-order receipts, and retries a receipt that came before the message was known', async () => {
      const account = await connect();
      await post(a, account, { events: [message('r-in', 'carla', 'hola')] }).expect(200);
      const conversationId = await eventually(async () => {
        const [conversation] = await conversationsOf(account.id);
        expect(conversation).toBeDefined();
        return conversation.id;
      });
      const agent = await createUser(a.dataSource, tenants.tenantA, { role: 'AGENT' });
      const sent = async (providerId: string, sequence: number) =>
        a.dataSource.query(
          `INSERT INTO messages (conversation_id, tenant_id, sequence, sender_kind, sender_id, text, channel, channel_account_id, provider_message_id, delivery_status)
           VALUES ($1, $2, $3, 'agent', $4, 'reply', $5, $6, $7, 'sent')`,
          [conversationId, tenants.tenantA.client.id, sequence, agent.user.id, KIND, account.id, providerId],
        );
      await sent('p-1', 10);
      const status = async (providerId: string) =>
        (
          (await a.dataSource.query(
            `SELECT delivery_status, delivery_error, read_at FROM messages WHERE channel_account_id = $1 AND provider_message_id = $2`,
            [account.id, providerId],
          )) as { delivery_status: string; delivery_error: string | null; read_at: Date | null }[]
        )[0];
      const now = new Date().toISOString();
      // read before delivered (a provider's out-of-order statuses): read lands, the late delivered is a no-op.
      await post(a, account, { events: [{ type: 'receipt', id: 'p-1', status: 'read', at: now }] }).expect(200);
      await eventually(async () => expect((await status('p-1')).delivery_status).toBe('read'));
      await post(a, account, {
        events: [
          { type: 'receipt', id: 'p-1', status: 'delivered', at: now },
          { type: 'receipt', id: 'p-1', status: 'failed', at: now, error: 'late' },
        ],
      }).expect(200);
      await eventually(async () =>
        expect(
          await count(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1 AND processed_at IS NULL`, [account.id]),
        ).toBe(0),
      );
      expect(await status('p-1')).toMatchObject({ delivery_status: 'read', delivery_error: null });
      expect((await status('p-1')).read_at).not.toBeNull();
      // failed is terminal and carries the provider's reason.
      await sent('p-2', 11);
      await post(a, account, {
        events: [{ type: 'receipt', id: 'p-2', status: 'failed', at: now, error: 'Recipient phone number not in allowed list' }],
      }).expect(200);
      await eventually(async () =>
        expect(await status('p-2')).toMatchObject({
          delivery_status: 'failed',
          delivery_error: 'Recipient phone number not in allowed list',
        }),
      );
      await post(a, account, { events: [{ type: 'receipt', id: 'p-2', status: 'read', at: now }] }).expect(200);
      // A receipt before the send's answer stored its id: kept unprocessed, retried, applied once the id is known.
      await post(a, account, { events: [{ type: 'receipt', id: 'p-late', status: 'delivered', at: now }] }).expect(200);
      await eventually(async () =>
        expect(
          await count(
            `SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1 AND last_error LIKE 'receipts for messages not stored yet%'`,
            [account.id],
          ),
        ).toBe(1),
      );
      await sent('p-late', 12);
      await eventually(async () => expect((await status('p-late')).delivery_status).toBe('delivered'), { timeoutMs: 20_000 });
      expect((await status('p-2')).delivery_status).toBe('failed');
    });

    it('records an opt-out from a STOP message and from a block, and clears it on unblock', async () => {
      const account = await connect();
      const now = Date.now();
      await post(a, account, {
        events: [
          message('o-1', 'dora', 'Stop!', new Date(now - 1000)),
          { type: 'opt-out', from: 'eve', at: new Date(now - 1000).toISOString(), reason: 'blocked' },
        ],
      }).expect(200);
      const optOuts = async () =>
        (await a.dataSource.query(
          `SELECT external_id, opt_out_reason, opted_out_at FROM contacts WHERE channel_account_id = $1 ORDER BY external_id`,
          [account.id],
        )) as { external_id: string; opt_out_reason: string | null; opted_out_at: Date | null }[];
      await eventually(async () =>
        expect((await optOuts()).map((row) => [row.external_id, row.opt_out_reason])).toEqual([
          ['dora', 'stop'],
          ['eve', 'blocked'],
        ]),
      );
      // The STOP message itself still reaches the desk.
      expect((await messagesOf(account.id)).map((m) => m.text)).toEqual(['Stop!']);
      await post(a, account, { events: [{ type: 'opt-in', from: 'eve', at: new Date(now).toISOString(), reason: 'unblocked' }] }).expect(
        200,
      );
      await eventually(async () => expect((await optOuts()).find((row) => row.external_id === 'eve')?.opted_out_at).toBeNull());
    });

    it("tells the staff watching a contact's open conversation that the customer is typing", async () => {
      const account = await connect();
      await post(a, account, { events: [message('t-1', 'fay', 'Hello?')] }).expect(200);
      let conversationId = '';
      await eventually(async () => {
        const [open] = await conversationsOf(account.id);
        expect(open?.status).toBe('LiningUp');
        conversationId = open.id;
      });
      const watcher = await connectStaff(a.url, tenants.adminA);
      try {
        const joined = await watcher.emitWithAck('join', { kind: 'conversation', id: conversationId });
        expect(joined).toMatchObject({ ok: true });
        const received = record(watcher);
        // A contact with no open conversation types too: nobody is told (its event is only consumed).
        await post(a, account, {
          events: [
            { type: 'typing', from: 'gil', at: new Date().toISOString() },
            { type: 'typing', from: 'fay', at: new Date().toISOString() },
          ],
        }).expect(200);
        await eventually(() =>
          expect(received.filter((event) => event.event === 'typing').map((event) => event.data)).toEqual([
            { conversationId, senderKind: 'customer', typing: true },
          ]),
        );
      } finally {
        watcher.close();
      }
    });

    it('stores a media-only message with its file as an attachment', async () => {
      const account = await connect();
      const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
      await post(a, account, {
        events: [
          {
            type: 'message',
            id: 'img-1',
            from: 'fran',
            at: new Date().toISOString(),
            media: [{ data: png.toString('base64'), mimeType: 'image/png', fileName: 'photo.png' }],
          },
        ],
      }).expect(200);
      await eventually(async () => {
        const [event] = (await a.dataSource.query(`SELECT last_error FROM channel_events WHERE account_id = $1`, [account.id])) as {
          last_error: string | null;
        }[];
        expect(event?.last_error ?? null).toBeNull();
        const rows = (await a.dataSource.query(
          `SELECT m.text, x.kind, x.file_name, x.mime_type, x.size FROM messages m JOIN message_attachments x ON x.message_id = m.id
           WHERE m.channel_account_id = $1 AND m.external_id = 'img-1'`,
          [account.id],
        )) as { text: string; kind: string; file_name: string; mime_type: string; size: number }[];
        expect(rows).toEqual([{ text: '', kind: 'image', file_name: 'photo.png', mime_type: 'image/png', size: png.length }]);
      });
    });

    it('stores a message with several files once, each file once under its own id, however its deliveries race', async () => {
      const account = await connect();
      const tenantId = tenants.tenantA.client.id;
      // Three different images in one provider message (Messenger and Instagram send several at once).
      const files = [1, 2, 3].map((n) => ({
        bytes: Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), randomBytes(12)]),
        fileName: `foto-${n}.png`,
      }));
      const body = (deliveryId: string): TestWebhookBody => ({
        deliveryId,
        events: [
          {
            type: 'message',
            id: 'multi-1',
            from: 'gus',
            name: 'Gus',
            at: new Date().toISOString(),
            media: files.map((file) => ({ data: file.bytes.toString('base64'), mimeType: 'image/png', fileName: file.fileName })),
          },
        ],
      });
      // Six deliveries of the same message, each its own stored event (another delivery id, as a
      // provider's re-batched retry is), to two API processes at once: their processing races.
      const answers = await Promise.all([0, 1, 2, 3, 4, 5].map((n) => post(n % 2 ? b : a, account, body(`multi-1#${n}`))));
      expect(answers.map((answer) => answer.status)).toEqual(new Array(6).fill(200));
      const unprocessed = () =>
        count(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1 AND processed_at IS NULL`, [account.id]);
      await eventually(async () => expect(await unprocessed()).toBe(0), { timeoutMs: 20_000 });
      // A late redelivery once it is stored: answered from the stored message, nothing fetched again.
      await post(a, account, body('multi-1#late')).expect(200);
      await eventually(async () => expect(await unprocessed()).toBe(0));

      const attachments = (await a.dataSource.query(
        `SELECT x.id, x.file_id, x.file_name, x.size FROM messages m JOIN message_attachments x ON x.message_id = m.id
         WHERE m.channel_account_id = $1 AND m.external_id = 'multi-1' ORDER BY x.created_at, x.file_name`,
        [account.id],
      )) as { id: string; file_id: string; file_name: string; size: number }[];
      expect(
        await count(`SELECT count(*)::int AS n FROM messages WHERE channel_account_id = $1 AND external_id = 'multi-1'`, [account.id]),
      ).toBe(1);
      expect(attachments.map((one) => [one.file_name, one.size])).toEqual(files.map((file) => [file.fileName, file.bytes.length]));
      expect(new Set(attachments.map((one) => one.id)).size).toBe(3);
      expect(new Set(attachments.map((one) => one.file_id)).size).toBe(3);
      // Each file's bytes are in the file store once, the copy the message records: the deliveries
      // that lost the race removed theirs.
      const copies = (await a.dataSource.query(
        `SELECT f.id, lo_get(f.lo_oid) AS bytes FROM stored_files f WHERE f.tenant_id = $1 AND f.driver = 'postgres'
           AND lo_get(f.lo_oid) = ANY($2::bytea[])`,
        [tenantId, files.map((file) => file.bytes)],
      )) as { id: string; bytes: Buffer }[];
      expect(copies.map((copy) => copy.id).sort()).toEqual(attachments.map((one) => one.file_id).sort());
    });

    it('keeps receipts that come before their message has its provider id and applies them, in the provider’s order, when it does', async () => {
      const account = await connect();
      await post(a, account, { events: [message('k-0', 'hal', 'Hola')] }).expect(200);
      const conversationId = await eventually(async () => {
        const [conversation] = await conversationsOf(account.id);
        expect(conversation).toBeDefined();
        return conversation.id;
      });
      const agent = await createUser(a.dataSource, tenants.tenantA, { role: 'AGENT' });
      // Two replies the worker handed to the provider whose answers (their ids) it has not stored yet.
      const pendingReply = async (sequence: number) =>
        (
          (await a.dataSource.query(
            `INSERT INTO messages (conversation_id, tenant_id, sequence, sender_kind, sender_id, text, channel, channel_account_id, delivery_status)
             VALUES ($1, $2, $3, 'agent', $4, 'reply', $5, $6, 'pending') RETURNING id`,
            [conversationId, tenants.tenantA.client.id, sequence, agent.user.id, KIND, account.id],
          )) as { id: string }[]
        )[0].id;
      const [first, second] = [await pendingReply(10), await pendingReply(11)];
      const at = (seconds: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, seconds)).toISOString();
      // The provider's statuses, each its own delivery, reversed and spread over both processes.
      const receipts: TestWebhookBody['events'] = [
        { type: 'receipt', id: 'late-1', status: 'read', at: at(3) },
        { type: 'receipt', id: 'late-1', status: 'delivered', at: at(2) },
        { type: 'receipt', id: 'late-1', status: 'sent', at: at(1) },
        { type: 'receipt', id: 'late-2', status: 'failed', at: at(2), error: 'Message undeliverable' },
        { type: 'receipt', id: 'late-2', status: 'delivered', at: at(1) },
      ];
      const answers = await Promise.all(receipts.map((receipt, n) => post(n % 2 ? b : a, account, { events: [receipt] })));
      expect(answers.map((answer) => answer.status)).toEqual(new Array(5).fill(200));
      const kept = () =>
        a.dataSource.query(
          `SELECT provider_message_id, status FROM channel_pending_receipts WHERE account_id = $1 ORDER BY provider_message_id, at`,
          [account.id],
        ) as Promise<{ provider_message_id: string; status: string }[]>;
      await eventually(async () =>
        expect((await kept()).map((one) => `${one.provider_message_id} ${one.status}`)).toEqual([
          'late-1 sent',
          'late-1 delivered',
          'late-1 read',
          'late-2 delivered',
          'late-2 failed',
        ]),
      );
      // The worker stores the send's answer as markSent does (apps/worker/src/channels/channel-send.ts).
      const markSent = (id: string, providerId: string) =>
        a.dataSource.query(
          `UPDATE messages SET provider_message_id = $2,
             delivery_status = CASE WHEN delivery_status = 'pending' THEN 'sent' ELSE delivery_status END,
             delivery_updated_at = now()
           WHERE id = $1`,
          [id, providerId],
        );
      await markSent(first, 'late-1');
      await markSent(second, 'late-2');
      const state = async (id: string) =>
        (
          (await a.dataSource.query(`SELECT delivery_status, delivery_error, delivered_at, read_at FROM messages WHERE id = $1`, [id])) as {
            delivery_status: string;
            delivery_error: string | null;
            delivered_at: Date | null;
            read_at: Date | null;
          }[]
        )[0];
      expect(await state(first)).toEqual({
        delivery_status: 'read',
        delivery_error: null,
        delivered_at: new Date(at(2)),
        read_at: new Date(at(3)),
      });
      expect(await state(second)).toMatchObject({ delivery_status: 'failed', delivery_error: 'Message undeliverable', read_at: null });
      expect(await kept()).toEqual([]);
      // The events' own retries then find the messages and change nothing.
      await eventually(
        async () =>
          expect(
            await count(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1 AND processed_at IS NULL`, [account.id]),
          ).toBe(0),
        { timeoutMs: 20_000 },
      );
      expect((await state(first)).delivery_status).toBe('read');
      expect((await state(second)).delivery_status).toBe('failed');
    });
  });
});
