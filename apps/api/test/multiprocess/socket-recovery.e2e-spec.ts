import { SOCKET_NAMESPACES, type AgentView } from '@centralita/contracts';
import { io, type Socket } from 'socket.io-client';
import { eventually } from '../../../../test/support/eventually';
import { createCampaign, createStaff, createTenant, data, record, type StaffSocket } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

jest.setTimeout(60_000);

/** What socket.io-client keeps of a recoverable session (private fields: the handshake sends them as `pid` and `offset`). */
const sessionOf = (socket: Socket) => {
  const kept = socket as unknown as { _pid?: string; _lastOffset?: string };
  return { pid: kept._pid, offset: kept._lastOffset };
};

/**
 * Issue 18, item 4: a desk whose connection drops and comes back through the proxy to the other
 * API process gets every event it missed, once and in order. The session and the missed packets
 * live in the Redis stream both servers share (@socket.io/redis-streams-adapter), not in the
 * memory of the process the socket first reached.
 */
describe('socket connection-state recovery across API processes', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    // Their own stream, shared by the two: other suites' pushes would trim a shared one.
    const queuePrefix = `${process.env.QUEUE_PREFIX}-recovery-2p`;
    [a, b] = await Promise.all([startTestApp({ queuePrefix }), startTestApp({ queuePrefix })]);
  });

  afterAll(() => Promise.all([a.close(), b.close()]));

  const staffSocket = (url: string, auth: Record<string, unknown>) =>
    io(`${url}${SOCKET_NAMESPACES.staff}`, { auth, transports: ['websocket'], reconnection: false, forceNew: true }) as StaffSocket;
  const connected = (socket: Socket) => new Promise<void>((resolve) => socket.once('connect', () => resolve()));

  it('gives a socket that reconnects to the other process every event it missed, once and in order', async () => {
    const tenant = await createTenant(a.dataSource);
    const campaignId = await createCampaign(a.dataSource, tenant, 2);
    const agent = await createStaff(a, tenant, 'AGENT');
    const first = staffSocket(a.url, { token: agent.token });
    let second: StaffSocket | undefined;
    try {
      const before = record(first);
      await connected(first);
      await a.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
      await eventually(() => expect(before.some((entry) => entry.event === 'agent.updated')).toBe(true));
      const session = sessionOf(first);
      expect(session.pid).toEqual(expect.any(String));

      // The transport dies (not a deliberate disconnect), and the changes happen on either process meanwhile.
      first.io.engine.close();
      await eventually(() => expect(first.connected).toBe(false));
      await b.http().post('/api/agent/presence/pause').set(bearer(agent.token)).send({ reasonId: 'break' }).expect(200);
      await a.http().post('/api/agent/presence/pause').set(bearer(agent.token)).send({ reasonId: 'lunch' }).expect(200);
      await b.http().post('/api/agent/presence/available').set(bearer(agent.token)).expect(200);
      const last = data<AgentView>(await b.http().get('/api/agent/presence').set(bearer(agent.token)));

      // Back, through the other process, with the session the client kept.
      second = staffSocket(b.url, { token: agent.token, ...session });
      const after = record(second);
      await connected(second);
      // B restored the session A opened (a new one would have a new id).
      expect(sessionOf(second).pid).toBe(session.pid);
      await eventually(() => {
        const versions = [...before, ...after]
          .filter((entry) => entry.event === 'agent.updated')
          .map((entry) => (entry.data as AgentView).version);
        expect(versions.at(-1)).toBe(last.version);
        // Every version from login on, each once and in order: nothing lost, nothing repeated.
        expect(versions).toEqual(Array.from({ length: versions.length }, (_, i) => versions[0] + i));
      });
      expect(after.filter((entry) => entry.event === 'agent.updated').length).toBeGreaterThanOrEqual(3);
    } finally {
      first.close();
      second?.close();
    }
  });
});
