// P5: server memory per authenticated agent socket on /staff (JWT + principal check, agent room
// joined, connection-state recovery and the Redis Streams adapter as configured) against a bare
// Socket.IO connection (in-memory adapter, no auth). N sockets each; the server's heapUsed+external
// and RSS are read over IPC after a forced GC (--expose-gc) before and after connecting.
// The ratio is on heap+external per socket (deterministic after GC); RSS per socket is reported too.
import path from 'node:path';
import { accessToken, connect, createUsers, here, pool, pooled, sleep, startIpcServer } from './realtime-fixtures.mjs';

async function perSocket(server, open) {
  await sleep(500);
  const before = await server.memory();
  const sockets = await open();
  await sleep(1500); // connection side effects (presence signal, room joins) settle
  const after = await server.memory();
  for (const socket of sockets) socket.close();
  const n = sockets.length;
  return {
    heap: (after.heapUsed + after.external - (before.heapUsed + before.external)) / n,
    rss: (after.rss - before.rss) / n,
  };
}

export default {
  id: 'P5',
  title: 'Memory per authenticated agent socket (/staff, rooms joined) vs a bare Socket.IO connection',
  goal: { ratio: 1.5, direction: 'max' },
  async run({ env, quick, databaseUrl }) {
    const n = quick ? 200 : 1000;
    const db = pool(databaseUrl, 2);
    const agents = await createUsers(db, { count: n, role: 'AGENT', tag: 'p5' });
    await db.end();
    const prefix = `${env.QUEUE_PREFIX}-p5-${Date.now().toString(36)}`;
    const api = await startIpcServer(path.join(here, 'servers/api-server-ipc.cjs'), { ...env, QUEUE_PREFIX: prefix });
    const bare = await startIpcServer(path.join(here, 'servers/bare-socketio.cjs'), env);
    try {
      const tokens = agents.map((user) => accessToken(env.JWT_SECRET, user));
      // Warm both (code paths compiled, pools opened), then measure.
      for (const socket of await pooled(tokens.slice(0, 20), 10, (token) => connect(api.url, '/staff', token))) socket.close();
      for (const socket of await pooled(tokens.slice(0, 20), 10, () => connect(bare.url, '', null))) socket.close();
      const real = await perSocket(api, () => pooled(tokens, 20, (token) => connect(api.url, '/staff', token)));
      const raw = await perSocket(bare, () => pooled(tokens, 20, () => connect(bare.url, '', null, { room: 'r' })));
      const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
      return {
        value: real.heap / 1024,
        baseline: raw.heap / 1024,
        ratio: real.heap / raw.heap,
        unit: 'KiB/socket',
        detail: `${n} sockets each; heap+external per socket ${kb(real.heap)} vs ${kb(raw.heap)}; RSS per socket ${kb(real.rss)} vs ${kb(raw.rss)} (after forced GC)`,
      };
    } finally {
      await api.stop();
      await bare.stop();
    }
  },
};
