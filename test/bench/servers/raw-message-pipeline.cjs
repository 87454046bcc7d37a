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
const { rawPool, serveJson, streamsAdapterServer } = require('./raw-common.cjs');
const { SOCKET_NAMESPACES, roomName } = require('@centralita/contracts');
const { messageView } = require('@centralita/contracts/server');

const TENANT = '00000000-0000-4000-8000-000000000002';
/** Postgres' unique_violation: two messages of one conversation took the same next sequence at once. */
const UNIQUE_VIOLATION = '23505';
const INSERT = `INSERT INTO bench_raw_messages (conversation_id, tenant_id, sequence, sender_kind, sender_id, text, client_message_id)
  VALUES ($1, $2, (SELECT COALESCE(max(sequence), 0) + 1 FROM bench_raw_messages WHERE conversation_id = $1), 'customer', NULL, $3, $4)
  RETURNING *`;

const db = rawPool(Number(process.env.RAW_POOL_SIZE || 10));
const sockets = streamsAdapterServer();
const staff = sockets.io.of(SOCKET_NAMESPACES.staff);

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

serveJson(
  async (body, request) => {
    if (request.method !== 'POST' || request.url !== '/message') throw Object.assign(new Error('not found'), { status: 404 });
    const view = messageView(await store(body));
    staff.to(roomName({ kind: 'agent', id: body.agentId })).emit('message.created', view);
    return { id: view.id, sequence: view.sequence };
  },
  {
    db,
    ready: db.query(
      `CREATE TABLE IF NOT EXISTS bench_raw_messages (LIKE messages INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)`,
    ),
    stop: sockets.close,
  },
);
