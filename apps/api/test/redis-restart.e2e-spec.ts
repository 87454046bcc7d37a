import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SOCKET_NAMESPACES, type AgentView } from '@centralita/contracts';
import type { INestApplicationContext } from '@nestjs/common';
import { io } from 'socket.io-client';
import { SMTPServer } from 'smtp-server';
import { eventually } from '../../../test/support/eventually';
import { createWorker } from '../../worker/src/main';
import { createUser } from './support/factories';
import { OwnRedis } from './support/own-redis';
import { createCampaign, createStaff, createTenant, data, record, type StaffSocket } from './support/realtime';
import { bearer, startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(120_000);

/** Longest a request may take while Redis is away: it must answer (503), not hang. */
const ANSWER_WITHIN_MS = 10_000;

/**
 * QUALITY.md (Reliability): while Redis is away the API answers 503 instead of hanging; when it
 * returns, the API, the queues and the sockets recover without restarting anything. The suite
 * runs its own redis-server (the shared one is never touched) and SIGTERMs it by pid.
 */
describe('Redis restarted under a running API and worker', () => {
  let redis: OwnRedis;
  let smtp: SMTPServer;
  let worker: INestApplicationContext;
  let t: TestApp;
  const inbox: { to: string[]; raw: string }[] = [];
  const savedGrace = process.env.DISCONNECT_GRACE_SECONDS;

  beforeAll(async () => {
    // The API's own timer queue is checked after the restart with the disconnect-grace timer.
    process.env.DISCONNECT_GRACE_SECONDS = '1';
    redis = await OwnRedis.start();
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          inbox.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw: Buffer.concat(chunks).toString('utf8') });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as AddressInfo;
    const queuePrefix = `${process.env.QUEUE_PREFIX ?? 'ct'}-restart-${randomBytes(3).toString('hex')}`;
    worker = await createWorker({
      config: { redisUrl: redis.url, queuePrefix, smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'Centralita <no-reply@centralita.test>' },
      logger: ['error'],
    });
    t = await startTestApp({ redisUrl: redis.url, queuePrefix });
  });

  afterAll(async () => {
    await t?.close();
    await worker?.close();
    await redis?.destroy();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    if (savedGrace === undefined) delete process.env.DISCONNECT_GRACE_SECONDS;
    else process.env.DISCONNECT_GRACE_SECONDS = savedGrace;
  });

  it('answers 503 while Redis is away, and recovers requests, queues and sockets when it returns', async () => {
    const tenant = await createTenant(t.dataSource);
    const campaignId = await createCampaign(t.dataSource, tenant, 2);
    const agent = await createStaff(t, tenant, 'AGENT');
    const { email } = await createUser(t.dataSource, tenant);
    const socket = io(`${t.url}${SOCKET_NAMESPACES.staff}`, {
      auth: { token: agent.token },
      transports: ['websocket'],
      reconnectionDelay: 200,
      reconnectionDelayMax: 1000,
      forceNew: true,
    }) as StaffSocket;
    const received = record(socket);
    let connects = 0;
    socket.on('connect', () => connects++);
    const agentVersions = () =>
      received.filter((entry) => entry.event === 'agent.updated').map((entry) => (entry.data as AgentView).version);
    const mailsTo = (address: string) => inbox.filter((mail) => mail.to.includes(address)).length;
    try {
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));

      // Before: everything works.
      await t.http().get('/api/health').expect(200);
      await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
      await eventually(() => expect(agentVersions().length).toBeGreaterThan(0));
      await t.http().post('/Session/SendResetPasswordEmail').send({ email }).expect(200);
      await eventually(() => expect(mailsTo(email)).toBe(1), { timeoutMs: 15_000 });

      // Redis goes away.
      await redis.stop();

      // Health: 503 with the report, within a bounded time.
      await eventually(
        async () => {
          const started = Date.now();
          const response = await t.http().get('/api/health').timeout(ANSWER_WITHIN_MS);
          expect(Date.now() - started).toBeLessThan(ANSWER_WITHIN_MS);
          expect(response.status).toBe(503);
          expect(response.body).toMatchObject({ errorCode: 'service_unavailable', data: { database: 'up', redis: 'down' } });
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      // A request that needs Redis (rate limit + mail queue): 503, not a hang and not a 500.
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const response = await t.http().post('/Session/SendResetPasswordEmail').send({ email }).timeout(ANSWER_WITHIN_MS);
        expect(Date.now() - started).toBeLessThan(ANSWER_WITHIN_MS);
        expect(response.status).toBe(503);
        expect(response.body).toMatchObject({ statusCode: 503, errorCode: 'service_unavailable' });
        expect(response.headers['retry-after']).toBe('5');
      }
      expect(mailsTo(email)).toBe(1);
      // The staff socket's transport dies while Redis is away (Socket.IO itself is in-process and
      // would otherwise stay up): the client keeps trying to reconnect through the outage.
      socket.io.engine.close();
      await eventually(() => expect(socket.connected).toBe(false));

      // Redis returns on the same port (same AOF directory); nothing else is restarted.
      await redis.start();

      await eventually(async () => expect((await t.http().get('/api/health').timeout(ANSWER_WITHIN_MS)).status).toBe(200), {
        timeoutMs: 30_000,
        intervalMs: 200,
      });
      // Requests succeed again and the worker resumes: a mail queued after the restart is sent.
      await eventually(
        async () =>
          expect((await t.http().post('/Session/SendResetPasswordEmail').send({ email }).timeout(ANSWER_WITHIN_MS)).status).toBe(200),
        { timeoutMs: 15_000, intervalMs: 200 },
      );
      await eventually(() => expect(mailsTo(email)).toBe(2), { timeoutMs: 30_000, intervalMs: 100 });

      // Sockets: reconnected by themselves and receiving pushes again.
      await eventually(() => expect(socket.connected).toBe(true), { timeoutMs: 30_000, intervalMs: 100 });
      expect(connects).toBeGreaterThanOrEqual(2);
      const seen = agentVersions().length;
      const paused = data<AgentView>(await t.http().post('/api/agent/presence/pause').set(bearer(agent.token)).send({ reasonId: 'break' }));
      await eventually(() => expect(agentVersions().slice(seen)).toContain(paused.version), { timeoutMs: 30_000, intervalMs: 100 });

      // The API's timer queue resumed too: the last socket leaves, the disconnect-grace timer (1 s)
      // is enqueued after the restart and fires, pausing the agent as auto-away.
      await t.http().post('/api/agent/presence/available').set(bearer(agent.token)).expect(200);
      socket.close();
      await eventually(
        async () =>
          expect(data<AgentView>(await t.http().get('/api/agent/presence').set(bearer(agent.token)))).toMatchObject({
            status: 'paused',
            pauseReasonId: 'auto_away',
          }),
        { timeoutMs: 30_000, intervalMs: 100 },
      );
    } finally {
      socket.close();
    }
  });
});
