import { randomBytes } from 'node:crypto';
import {
  PERMISSIONS,
  SOCKET_NAMESPACES,
  roomName,
  type AuthResult,
  type ConversationView,
  type RoleSummary,
  type StartChatResult,
  type TokenPair,
} from '@centralita/contracts';
import { io } from 'socket.io-client';
import { eventually } from '../../../../test/support/eventually';
import { sha256 } from '../../src/modules/auth/refresh-token.service';
import { RealtimeService } from '../../src/modules/realtime/realtime.service';
import { createUser } from '../support/factories';
import { spawnChild, type ChildWorker } from '../support/processes';
import {
  connectStaff,
  connectVisitor,
  createCampaign,
  createLine,
  createPoll,
  createStaff,
  createTenant,
  data,
  type StaffSocket,
  type VisitorSocket,
} from '../support/realtime';
import { bearer, login, startTestApp, type TestApp } from '../support/test-app';

jest.setTimeout(120_000);

/** The bar: a socket on the other API process is gone within a second of the change. */
const WITHIN_A_SECOND = { timeoutMs: 1_000, intervalMs: 10 };
/** Short, so the suite can watch a closed conversation's visitor token stop working. */
const VISITOR_GRACE_SECONDS = 2;

interface Watched<S> {
  socket: S;
  /** Disconnect reasons, in order, as the client saw them. */
  reasons: string[];
  /** Every event the server wrote to this connection, even before a (refused) connect completed. */
  packets: unknown[][];
}

function watch<S extends StaffSocket | VisitorSocket>(socket: S): Watched<S> {
  const reasons: string[] = [];
  const packets: unknown[][] = [];
  (socket as StaffSocket).on('disconnect', (reason) => reasons.push(reason));
  // The manager sees packets the socket would only buffer (sent before its CONNECT): a leak shows here.
  socket.io.on('packet', (packet: { type: number; data?: unknown[] }) => {
    if (packet.type === 2 && Array.isArray(packet.data)) packets.push(packet.data);
  });
  return { socket, reasons, packets };
}

/** The errorCode a connection attempt is refused with; fails if it connects. */
async function refusal(url: string, namespace: 'staff' | 'visitor', token: string): Promise<string | undefined> {
  let socket: StaffSocket | VisitorSocket;
  try {
    socket = namespace === 'staff' ? await connectStaff(url, token) : await connectVisitor(url, token);
  } catch (error) {
    return (error as { data?: { errorCode?: string } }).data?.errorCode;
  }
  socket.close();
  throw new Error(`the ${namespace} socket connected with a token that should be refused`);
}

describe('A session that ends, ends everywhere (security: session end)', () => {
  let a: TestApp;
  let b: { url: string; child: ChildWorker };
  const sockets: { close: () => void }[] = [];

  beforeAll(async () => {
    process.env.VISITOR_CLOSED_GRACE_SECONDS = String(VISITOR_GRACE_SECONDS);
    // B is a separate operating-system process: nothing is shared with A but PostgreSQL and Redis.
    const child = spawnChild('api.child.ts', { ...process.env });
    a = await startTestApp();
    await child.ready;
    const url = /listening (\S+)/.exec(child.output())?.[1];
    if (!url) throw new Error(`the second API printed no URL:\n${child.output()}`);
    b = { url, child };
  });

  afterAll(async () => {
    for (const socket of sockets) socket.close();
    if (b) {
      b.child.child.kill('SIGTERM');
      await b.child.exited;
    }
    await a?.close();
  });

  async function staffOnB(token: string): Promise<Watched<StaffSocket>> {
    const socket = await connectStaff(b.url, token);
    sockets.push(socket);
    return watch(socket);
  }

  async function tenantWithAdmin() {
    const tenant = await createTenant(a.dataSource);
    const admin = await createUser(a.dataSource, tenant, { role: 'ADMIN' });
    return { tenant, adminToken: (await login(a, admin.email, admin.password)).accessToken };
  }

  /** A push to the tenant room, made on A: it reaches B's sockets through the adapter only. */
  function pushToTenant(tenantId: string, marker: string): void {
    a.app.get(RealtimeService).emit('staff', [roomName({ kind: 'tenant', id: tenantId })], 'sentiment.alert', { marker });
  }

  it("ends only the logged-out session's socket on the other process, not the user's other session", async () => {
    const { tenant } = await tenantWithAdmin();
    const agent = await createUser(a.dataSource, tenant, { role: 'AGENT' });
    const first = await login(a, agent.email, agent.password);
    const second = await login(a, agent.email, agent.password);
    const ending = await staffOnB(first.accessToken);
    const staying = await staffOnB(second.accessToken);

    await a.http().post('/api/auth/logout').set(bearer(first.accessToken)).send({ userId: agent.user.id }).expect(200);

    await eventually(() => expect(ending.socket.connected).toBe(false), WITHIN_A_SECOND);
    expect(ending.reasons).toEqual(['io server disconnect']);
    // The other sign-in still has its socket, and the server still answers it.
    const own = await staying.socket.timeout(5_000).emitWithAck('join', { kind: 'agent', id: agent.user.id });
    expect(own).toEqual({ ok: true, room: roomName({ kind: 'agent', id: agent.user.id }) });
    expect(staying.reasons).toEqual([]);
    expect(await refusal(b.url, 'staff', first.accessToken)).toBe('session_expired');
  });

  it('ends every socket of a user whose password was reset, on the other process', async () => {
    const { tenant } = await tenantWithAdmin();
    const agent = await createUser(a.dataSource, tenant, { role: 'AGENT' });
    const session = await login(a, agent.email, agent.password);
    const desk = await staffOnB(session.accessToken);
    const resetToken = randomBytes(32).toString('base64url');
    await a.dataSource.query(
      `INSERT INTO password_reset_tokens (user_id, token_hash, expires_at) VALUES ($1, $2, now() + interval '10 minutes')`,
      [agent.user.id, sha256(resetToken)],
    );

    await a
      .http()
      .post('/Session/ResetPassword')
      .send({ token: resetToken, password: `Quartz lantern ${randomBytes(6).toString('hex')} drifts over the fjord` })
      .expect(200);

    await eventually(() => expect(desk.socket.connected).toBe(false), WITHIN_A_SECOND);
    expect(desk.reasons).toEqual(['io server disconnect']);
    expect(await refusal(b.url, 'staff', session.accessToken)).toBe('session_expired');
  });

  it('ends every socket of a deactivated user on the other process, and refuses a new one', async () => {
    const { tenant, adminToken } = await tenantWithAdmin();
    const agent = await createUser(a.dataSource, tenant, { role: 'SUPER' });
    const token = (await login(a, agent.email, agent.password)).accessToken;
    const board = await staffOnB(token);

    await a.http().patch(`/api/users/${agent.user.id}`).set(bearer(adminToken)).send({ active: false }).expect(200);

    await eventually(() => expect(board.socket.connected).toBe(false), WITHIN_A_SECOND);
    expect(board.reasons).toEqual(['io server disconnect']);
    pushToTenant(tenant.client.id, 'after-deactivation');
    expect(await refusal(b.url, 'staff', token)).toBe('account_disabled');
    expect(board.packets.flat()).not.toContainEqual({ marker: 'after-deactivation' });
  });

  it("drops the sockets of a role's users when its permissions change, and they come back without the lost rooms", async () => {
    const { tenant, adminToken } = await tenantWithAdmin();
    const supervisor = await createUser(a.dataSource, tenant, { role: 'SUPER' });
    const token = (await login(a, supervisor.email, supervisor.password)).accessToken;
    const board = await staffOnB(token);
    pushToTenant(tenant.client.id, 'before');
    await eventually(() => expect(board.packets.flat()).toContainEqual({ marker: 'before' }));

    const role = data<RoleSummary>(
      await a
        .http()
        .get(`/api/roles/${tenant.roles.get('SUPER')!.id}`)
        .set(bearer(adminToken)),
    );
    await a
      .http()
      .put(`/api/roles/${role.id}`)
      .set(bearer(adminToken))
      .send({
        code: role.code,
        name: role.name,
        permissions: role.permissions.filter((permission) => permission !== PERMISSIONS.conversationsSupervise),
        menuPaths: [],
      })
      .expect(200);

    await eventually(() => expect(board.socket.connected).toBe(false), WITHIN_A_SECOND);
    // A dropped transport, not a sign-out: the console reconnects by itself, with its new rights.
    expect(board.reasons).toEqual(['transport close']);
    const again = await staffOnB(token);
    const tenantRoom = await again.socket.timeout(5_000).emitWithAck('join', { kind: 'tenant', id: tenant.client.id });
    expect(tenantRoom).toMatchObject({ ok: false, errorCode: 'forbidden' });
    pushToTenant(tenant.client.id, 'after');
    // A push to the agent's own room, sent after the tenant push, proves the tenant push had its chance to arrive.
    a.app.get(RealtimeService).emit('staff', [roomName({ kind: 'agent', id: supervisor.user.id })], 'sentiment.alert', { marker: 'own' });
    await eventually(() => expect(again.packets.flat()).toContainEqual({ marker: 'own' }));
    expect(again.packets.flat()).not.toContainEqual({ marker: 'after' });
  });

  it("drops a user's sockets when an administrator gives them another role", async () => {
    const { tenant, adminToken } = await tenantWithAdmin();
    const supervisor = await createUser(a.dataSource, tenant, { role: 'SUPER' });
    const token = (await login(a, supervisor.email, supervisor.password)).accessToken;
    const board = await staffOnB(token);

    await a
      .http()
      .patch(`/api/users/${supervisor.user.id}`)
      .set(bearer(adminToken))
      .send({ roleId: tenant.roles.get('AGENT')!.id })
      .expect(200);

    await eventually(() => expect(board.socket.connected).toBe(false), WITHIN_A_SECOND);
    expect(board.reasons).toEqual(['transport close']);
  });

  it('ends the socket of a refresh family revoked by the reuse of a rotated refresh token', async () => {
    const { tenant } = await tenantWithAdmin();
    const agent = await createUser(a.dataSource, tenant, { role: 'AGENT' });
    const session: AuthResult = await login(a, agent.email, agent.password);
    const desk = await staffOnB(session.accessToken);
    data<TokenPair>(await a.http().post('/Session/RefreshToken').send({ refreshToken: session.refreshToken }));

    // The spent token again: it leaked, so its whole family (this socket's session) is revoked.
    await a.http().post('/Session/RefreshToken').send({ refreshToken: session.refreshToken }).expect(401);

    await eventually(() => expect(desk.socket.connected).toBe(false), WITHIN_A_SECOND);
    expect(desk.reasons).toEqual(['io server disconnect']);
    expect(await refusal(b.url, 'staff', session.accessToken)).toBe('session_expired');
  });

  describe('connection-state recovery', () => {
    /** A supervisor's socket on B that recovers by hand (reconnect = socket.connect()), having seen one push. */
    async function recoverableBoard(tenantId: string, token: string): Promise<Watched<StaffSocket>> {
      const socket = io(`${b.url}${SOCKET_NAMESPACES.staff}`, {
        auth: { token },
        transports: ['websocket'],
        reconnection: false,
        forceNew: true,
      }) as StaffSocket;
      sockets.push(socket);
      const board = watch(socket);
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('connect_error', reject);
      });
      // Recovery resumes from the offset of the last event received: one is needed first.
      pushToTenant(tenantId, 'seen');
      await eventually(() => expect(board.packets).toContainEqual(['sentiment.alert', { marker: 'seen' }, expect.any(String)]));
      // The transport dies (not a deliberate disconnect): B keeps the session for recovery.
      const pid = (socket as unknown as { _pid: string })._pid;
      socket.io.engine.close();
      await eventually(() => expect(socket.connected).toBe(false));
      await eventually(async () => expect(await a.redis.exists(`${process.env.QUEUE_PREFIX}:sio:session:${pid}`)).toBe(1));
      return board;
    }

    function reconnect(board: Watched<StaffSocket>): Promise<{ connected: true } | { refused: string | undefined }> {
      return new Promise((resolve) => {
        board.socket.once('connect', () => resolve({ connected: true }));
        board.socket.once('connect_error', (error) => resolve({ refused: (error as { data?: { errorCode?: string } }).data?.errorCode }));
        board.socket.connect();
      });
    }

    it('recovers a valid session with what it missed (the control for the next test)', async () => {
      const { tenant } = await tenantWithAdmin();
      const supervisor = await createUser(a.dataSource, tenant, { role: 'SUPER' });
      const board = await recoverableBoard(tenant.client.id, (await login(a, supervisor.email, supervisor.password)).accessToken);
      pushToTenant(tenant.client.id, 'missed');

      expect(await reconnect(board)).toEqual({ connected: true });
      expect(board.socket.recovered).toBe(true);
      await eventually(() => expect(board.packets.flat()).toContainEqual({ marker: 'missed' }));
    });

    it("refuses to recover a deactivated user's socket: no rooms, no missed pushes, no joins", async () => {
      const { tenant, adminToken } = await tenantWithAdmin();
      const supervisor = await createUser(a.dataSource, tenant, { role: 'SUPER' });
      const token = (await login(a, supervisor.email, supervisor.password)).accessToken;
      const board = await recoverableBoard(tenant.client.id, token);
      await a.http().patch(`/api/users/${supervisor.user.id}`).set(bearer(adminToken)).send({ active: false }).expect(200);
      pushToTenant(tenant.client.id, 'missed');

      expect(await reconnect(board)).toEqual({ refused: 'account_disabled' });
      expect(board.socket.connected).toBe(false);
      expect(board.socket.recovered).toBe(false);
      // Not even written to the wire before the refusal.
      expect(board.packets.flat()).not.toContainEqual({ marker: 'missed' });
      // A later push to the tenant room does not reach the connection either.
      pushToTenant(tenant.client.id, 'later');
      const witness = await createUser(a.dataSource, tenant, { role: 'SUPER' });
      const other = await staffOnB((await login(a, witness.email, witness.password)).accessToken);
      pushToTenant(tenant.client.id, 'witnessed');
      await eventually(() => expect(other.packets.flat()).toContainEqual({ marker: 'witnessed' }));
      expect(board.packets.flat()).not.toContainEqual({ marker: 'later' });
      expect(board.packets.flat()).not.toContainEqual({ marker: 'witnessed' });
    });
  });

  describe('visitor tokens', () => {
    async function startChat(lineId: string): Promise<StartChatResult> {
      return data<StartChatResult>(
        await a.http().post('/api/webchat/conversations').send({ attentionLineId: lineId, name: 'Grace Hopper' }),
      );
    }

    /** Every visitor route that reads or writes the conversation answers 401, and the socket is refused. */
    async function expectTokenRefused(token: string): Promise<void> {
      const auth = bearer(token);
      const answers = [
        await a.http().get('/api/webchat/conversation').set(auth),
        await a.http().get('/api/webchat/conversation/messages').set(auth),
        await a.http().post('/api/webchat/conversation/messages').set(auth).send({ text: 'still there?' }),
        await a.http().post('/api/webchat/conversation/read').set(auth).send({ upToSequence: 1 }),
        await a.http().post('/api/webchat/conversation/typing').set(auth).send({ typing: true }),
        await a.http().get('/api/webchat/conversation/survey').set(auth),
      ];
      expect(answers.map((answer) => [answer.status, answer.body.errorMessage])).toEqual(
        answers.map(() => [401, 'The visitor token is invalid or has expired']),
      );
      expect(await refusal(b.url, 'visitor', token)).toBe('unauthorized');
    }

    it('stop working shortly after a conversation closes without a survey', async () => {
      const tenant = await createTenant(a.dataSource);
      const lineId = await createLine(a.dataSource, tenant, 'No survey');
      const chat = await startChat(lineId);
      const auth = bearer(chat.visitorToken);
      const open = watch(await connectVisitor(b.url, chat.visitorToken));
      sockets.push(open.socket);

      const closed = data<ConversationView>(await a.http().post('/api/webchat/conversation/leave').set(auth));
      expect(closed.status).toBe('Closed');
      // The widget's closing screen may still read the conversation for a moment.
      expect(data<{ conversation: ConversationView }>(await a.http().get('/api/webchat/conversation').set(auth)).conversation.status).toBe(
        'Closed',
      );

      await eventually(() => expectTokenRefused(chat.visitorToken), { timeoutMs: (VISITOR_GRACE_SECONDS + 5) * 1000, intervalMs: 250 });
      const own = await open.socket.timeout(5_000).emitWithAck('join', { kind: 'conversation', id: chat.conversation.id });
      expect(own).toMatchObject({ ok: false, errorCode: 'forbidden' });
      await eventually(() => expect(open.reasons).toEqual(['io server disconnect']));
      expect(
        await a.dataSource.query(`SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1`, [chat.conversation.id]),
      ).toEqual([{ n: 0 }]);
    });

    it('keep working through the survey and stop shortly after it ends', async () => {
      const tenant = await createTenant(a.dataSource);
      const survey = await createPoll(a.dataSource, tenant);
      const lineId = await createLine(a.dataSource, tenant, 'Surveyed', { pollId: survey.pollId });
      const campaignId = await createCampaign(a.dataSource, tenant, 2);
      const agent = await createStaff(a, tenant, 'AGENT', [lineId]);
      await a.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
      const chat = await startChat(lineId);
      const auth = bearer(chat.visitorToken);
      await a.http().post('/api/webchat/conversation/menu').set(auth).send({ queryTypeId: 'q', submenuId: 's' }).expect(200);
      await eventually(async () =>
        expect(
          data<{ conversation: ConversationView }>(await a.http().get('/api/webchat/conversation').set(auth)).conversation.status,
        ).toBe('Active'),
      );
      const inquest = data<ConversationView>(
        await a.http().post(`/api/agent/conversations/${chat.conversation.id}/close`).set(bearer(agent.token)).send({ disposition: 'ok' }),
      );
      expect(inquest.status).toBe('Inquest');

      // Surveyed: the token works, on both processes, until the last answer.
      (await connectVisitor(b.url, chat.visitorToken)).close();
      await a.http().get('/api/webchat/conversation/survey').set(auth).expect(200);
      await a
        .http()
        .post('/api/webchat/conversation/survey')
        .set(auth)
        .send({ questionId: survey.scaleQuestionId, answer: '8', last: false })
        .expect(200);
      const answered = data<ConversationView>(
        await a
          .http()
          .post('/api/webchat/conversation/survey')
          .set(auth)
          .send({ questionId: survey.textQuestionId, answer: 'Fine', last: true }),
      );
      expect(answered.status).toBe('Closed');

      await eventually(() => expectTokenRefused(chat.visitorToken), { timeoutMs: (VISITOR_GRACE_SECONDS + 5) * 1000, intervalMs: 250 });
      const again = await a
        .http()
        .post('/api/webchat/conversation/survey')
        .set(auth)
        .send({ questionId: survey.scaleQuestionId, answer: '1', last: true });
      expect(again.status).toBe(401);
      expect(
        await a.dataSource.query(`SELECT count(*)::int AS n FROM poll_responses WHERE conversation_id = $1`, [chat.conversation.id]),
      ).toEqual([{ n: 2 }]);
    });
  });
});
