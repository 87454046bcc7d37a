// P3's raw pipeline: bare node:http + pg + a Socket.IO server on the SAME Redis streams adapter as
// the API (stream and channel named from QUEUE_PREFIX exactly as RealtimeService names them), with
// no sockets of its own. POST /change {agentId, status} → one-row commit (a versioned UPDATE of a
// bench row) → `agent.updated` {agentId, version} to the tenant's batched supervisors' room, which
// the API's adapter reads from the stream and writes to the supervisor sockets connected to it.
// Answers {"data": {version}}; prints {"port": N} when listening.
const http = require('node:http');
const pg = require('pg');
const Redis = require('ioredis');
const { Server } = require('socket.io');
const { createAdapter } = require('@socket.io/redis-streams-adapter');

const TENANT = '00000000-0000-4000-8000-000000000002';
const prefix = process.env.QUEUE_PREFIX;
const room = `tenant:${TENANT}#batched`;
// Connections never close as idle: a backend that exits inside a measured window takes its CPU
// with it from the /proc reading (lib.mjs componentCpuSeconds).
const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 8, idleTimeoutMillis: 0 });
const redis = new Redis(process.env.REDIS_URL, { maxRetriesPerRequest: null, enableReadyCheck: false });
const io = new Server({
  serveClient: false,
  adapter: createAdapter(redis, {
    streamName: `${prefix}:socket.io`,
    channelPrefix: `${prefix}:socket.io`,
    sessionKeyPrefix: `${prefix}:sio:session:`,
    blockTimeInMs: 1000,
    onlyPlaintext: true,
    maxLen: Number(process.env.SOCKET_STREAM_MAXLEN || 250_000),
  }),
});
const staff = io.of('/staff');

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', async () => {
    try {
      const { agentId, status } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const { rows } = await db.query(
        `UPDATE bench_p3_board SET status = $2, version = version + 1, updated_at = now() WHERE agent_id = $1 RETURNING version`,
        [agentId, status],
      );
      staff.to(room).emit('agent.updated', { agentId, status, version: rows[0].version });
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ data: { version: rows[0].version } }));
    } catch (error) {
      response.writeHead(500, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ error: error.message }));
    }
  });
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('SIGTERM', () => {
  server.close();
  for (const nsp of io._nsps.values()) nsp.adapter.close();
  redis.disconnect();
  db.end().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
});
