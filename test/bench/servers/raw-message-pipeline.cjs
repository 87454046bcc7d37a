// P2's raw message pipeline, the baseline of P2 and C1 (QUALITY.md: "bare HTTP → one PostgreSQL
// statement → emit on the same adapter"): bare node:http, no Nest, no Express, no auth.
// POST /message {conversationId, agentId, text, clientMessageId} → ONE statement: the message row
// inserted into bench_raw_messages (a copy of `messages`: its columns, defaults, checks and
// indexes, the unique ones included; no foreign key), its sequence taken in the same statement as
// the API takes it → `message.created` (the MessageView the API pushes, built by the contracts'
// messageView) emitted on /staff to the agent's own room (`agent:<id>`) through a Socket.IO server
// on the SAME Redis streams adapter as the API (stream, channel and session keys named from
// QUEUE_PREFIX exactly as RealtimeService names them). This server has no sockets of its own: the
// API process reads the entry from the stream and writes it to the agent sockets connected to it.
// Answers 200 {"data": {id, sequence}} once the statement has committed; prints {"port": N} when
// listening (after creating the table).
const http = require('node:http');
const pg = require('pg');
const Redis = require('ioredis');
const { Server } = require('socket.io');
const { createAdapter } = require('@socket.io/redis-streams-adapter');
const { SOCKET_NAMESPACES, roomName } = require('@centralita/contracts');
const { messageView } = require('@centralita/contracts/server');

const TENANT = '00000000-0000-4000-8000-000000000002';
const prefix = process.env.QUEUE_PREFIX;
/** Postgres' unique_violation: two messages of one conversation took the same next sequence at once. */
const UNIQUE_VIOLATION = '23505';
const INSERT = `INSERT INTO bench_raw_messages (conversation_id, tenant_id, sequence, sender_kind, sender_id, text, client_message_id)
  VALUES ($1, $2, (SELECT COALESCE(max(sequence), 0) + 1 FROM bench_raw_messages WHERE conversation_id = $1), 'customer', NULL, $3, $4)
  RETURNING *`;

const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.RAW_POOL_SIZE || 10) });
db.on('error', () => undefined); // an idle client dropped (the run's DROP DATABASE ... FORCE)
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
const staff = io.of(SOCKET_NAMESPACES.staff);

async function store({ conversationId, text, clientMessageId }) {
  try {
    return (await db.query(INSERT, [conversationId, TENANT, text, clientMessageId])).rows[0];
  } catch (error) {
    // The API serialises a conversation's messages under its row lock; without one, a concurrent
    // message of the same conversation can take the same sequence. Rare at the benchmarks' spread
    // (hundreds of ms between one conversation's messages): taken again, as a fresh statement.
    if (error.code !== UNIQUE_VIOLATION || error.constraint?.includes('client')) throw error;
    return (await db.query(INSERT, [conversationId, TENANT, text, clientMessageId])).rows[0];
  }
}

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', async () => {
    try {
      if (request.method !== 'POST' || request.url !== '/message') throw Object.assign(new Error('not found'), { status: 404 });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const view = messageView(await store(body));
      staff.to(roomName({ kind: 'agent', id: body.agentId })).emit('message.created', view);
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ data: { id: view.id, sequence: view.sequence } }));
    } catch (error) {
      response.writeHead(error.status ?? 500, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ error: error.message }));
    }
  });
});
server.keepAliveTimeout = 5000;

db.query(`CREATE TABLE IF NOT EXISTS bench_raw_messages (LIKE messages INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)`).then(
  () => server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`)),
  (error) => {
    process.stderr.write(`raw-message-pipeline: ${error.message}\n`);
    process.exit(1);
  },
);
process.on('SIGTERM', () => {
  server.close();
  for (const nsp of io._nsps.values()) nsp.adapter.close();
  redis.disconnect();
  db.end().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
});
