// What the raw pipelines (the baselines of P1, P2/C1 and P3) share, so each server file holds only
// its own durable work: a pg pool, a Socket.IO server on the API's Redis streams adapter, and a bare
// node:http server taking JSON POSTs that prints {"port": N} when listening and stops on SIGTERM.
const http = require('node:http');
const pg = require('pg');

/**
 * A pool whose connections never close as idle: a backend that exits inside a measured window takes
 * its CPU with it from the /proc reading (lib.mjs componentCpuSeconds). An idle client dropped by
 * the run's DROP DATABASE … FORCE is no error.
 */
function rawPool(max) {
  const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max, idleTimeoutMillis: 0 });
  db.on('error', () => undefined);
  return db;
}

/**
 * A Socket.IO server with no sockets of its own on the SAME Redis streams adapter as the API
 * (stream, channel and session keys named from QUEUE_PREFIX exactly as RealtimeService names
 * them): what it emits, the API process reads from the stream and writes to the sockets connected
 * to it. Answers { io, close() }.
 */
function streamsAdapterServer() {
  const Redis = require('ioredis');
  const { Server } = require('socket.io');
  const { createAdapter } = require('@socket.io/redis-streams-adapter');
  const prefix = process.env.QUEUE_PREFIX;
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
  return {
    io,
    close: () => {
      for (const nsp of io._nsps.values()) nsp.adapter.close();
      redis.disconnect();
    },
  };
}

/**
 * Serves `handle(body, request)` — the parsed JSON body — answering 200 {"data": its result}, or
 * the error's `status` (500 by default) with {"error": message}. Listens once `ready` resolves
 * (exits 1 if it fails) and prints {"port": N}; on SIGTERM stops `db` and runs `stop`.
 */
function serveJson(handle, { db, ready = Promise.resolve(), stop = () => undefined }) {
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', async () => {
      try {
        const data = await handle(JSON.parse(Buffer.concat(chunks).toString('utf8')), request);
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ data }));
      } catch (error) {
        response.writeHead(error.status ?? 500, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ error: error.message }));
      }
    });
  });
  server.keepAliveTimeout = 5000;
  ready.then(
    () => server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`)),
    (error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  );
  process.on('SIGTERM', () => {
    server.close();
    stop();
    db.end().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  });
}

module.exports = { rawPool, streamsAdapterServer, serveJson };
