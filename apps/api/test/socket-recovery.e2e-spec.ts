import { SOCKET_NAMESPACES, type AgentView } from '@centralita/contracts';
import { io } from 'socket.io-client';
import { eventually } from '../../../test/support/eventually';
import { createCampaign, createStaff, createTenant, data, record, type StaffSocket } from './support/realtime';
import { bearer, startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(90_000);
const DROP_MS = 30_000;

describe('socket connection-state recovery', () => {
  let t: TestApp;

  beforeAll(async () => {
    // Its own stream: other suites of the run push enough events to trim a shared one during the drop.
    t = await startTestApp({ queuePrefix: `${process.env.QUEUE_PREFIX}-recovery` }, { ownDatabase: true });
  });

  afterAll(async () => {
    await t.close();
  });

  it('gives an agent whose connection dropped every event it missed, in order and once', async () => {
    const tenant = await createTenant(t.dataSource);
    const campaignId = await createCampaign(t.dataSource, tenant, 2);
    const agent = await createStaff(t, tenant, 'AGENT');
    const socket = io(`${t.url}${SOCKET_NAMESPACES.staff}`, {
      auth: { token: agent.token },
      transports: ['websocket'],
      // The client stays away 30 s (QUALITY.md), well inside the server's 2-minute recovery window.
      reconnectionDelay: DROP_MS,
      reconnectionDelayMax: DROP_MS,
      randomizationFactor: 0,
      forceNew: true,
    }) as StaffSocket;
    const received = record(socket);
    try {
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
      await eventually(() => expect(received.length).toBeGreaterThan(0));

      // The transport dies (not a deliberate disconnect): the server keeps the session for recovery.
      socket.io.engine.close();
      await eventually(() => expect(socket.connected).toBe(false));
      for (const reasonId of ['break', 'lunch']) {
        await t.http().post('/api/agent/presence/pause').set(bearer(agent.token)).send({ reasonId }).expect(200);
      }
      await t.http().post('/api/agent/presence/available').set(bearer(agent.token)).expect(200);
      const last = data<AgentView>(await t.http().get('/api/agent/presence').set(bearer(agent.token)));
      // Still away while the changes were pushed: these are missed events, not live ones.
      expect(socket.connected).toBe(false);
      const seenBeforeDrop = received.length;

      await eventually(() => expect(socket.connected).toBe(true), { timeoutMs: DROP_MS + 10_000, intervalMs: 200 });
      expect(socket.recovered).toBe(true);
      expect(received.length).toBeGreaterThan(seenBeforeDrop);
      await eventually(() => {
        const versions = received.filter((entry) => entry.event === 'agent.updated').map((entry) => (entry.data as AgentView).version);
        expect(versions.at(-1)).toBeGreaterThanOrEqual(last.version);
        // Every version from login on, each once and in order: nothing lost, nothing repeated.
        expect(versions).toEqual(Array.from({ length: versions.length }, (_, i) => versions[0] + i));
      });
    } finally {
      socket.close();
    }
  });
});
