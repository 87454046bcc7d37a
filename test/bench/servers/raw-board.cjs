// P3's raw pipeline: bare node:http + pg + a Socket.IO server on the SAME Redis streams adapter as
// the API (stream and channel named from QUEUE_PREFIX exactly as RealtimeService names them), with
// no sockets of its own. POST /change {agentId, status} → one-row commit (a versioned UPDATE of a
// bench row) → `agent.updated` {agentId, version} to the tenant's batched supervisors' room, which
// the API's adapter reads from the stream and writes to the supervisor sockets connected to it.
// Answers {"data": {version}}; prints {"port": N} when listening.
const { rawPool, serveJson, streamsAdapterServer } = require('./raw-common.cjs');

const TENANT = '00000000-0000-4000-8000-000000000002';
const room = `tenant:${TENANT}#batched`;
const db = rawPool(8);
const sockets = streamsAdapterServer();
const staff = sockets.io.of('/staff');

serveJson(
  async ({ agentId, status }) => {
    const { rows } = await db.query(
      `UPDATE bench_p3_board SET status = $2, version = version + 1, updated_at = now() WHERE agent_id = $1 RETURNING version`,
      [agentId, status],
    );
    staff.to(room).emit('agent.updated', { agentId, status, version: rows[0].version });
    return { version: rows[0].version };
  },
  { db, stop: sockets.close },
);
