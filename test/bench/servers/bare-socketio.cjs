// Baselines of P2, P3 and P5: a bare Socket.IO server (default in-memory adapter, no auth, no
// recovery) on a free loopback port; prints {"port": N}. Clients with auth {room} join that room;
// `echo` acks its payload (P2), `broadcast` sends {event, data} to a room (P3). With an IPC
// channel it answers {type: 'memory'} after a forced GC when run with --expose-gc (P5).
const http = require('node:http');
const { Server } = require('socket.io');

const server = http.createServer();
const io = new Server(server, { serveClient: false });
io.on('connection', (socket) => {
  const room = socket.handshake.auth && socket.handshake.auth.room;
  if (typeof room === 'string') socket.join(room);
  socket.on('echo', (payload, ack) => typeof ack === 'function' && ack(payload));
  socket.on('broadcast', ({ room: target, event, data }) => io.to(target).emit(event, data));
});
if (process.send) {
  process.on('message', (message) => {
    if (message && message.type === 'memory') {
      if (global.gc) for (let i = 0; i < 3; i++) global.gc();
      process.send({ type: 'memory', ...process.memoryUsage(), sockets: io.engine.clientsCount });
    }
  });
}
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('SIGTERM', () => {
  io.close();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
});
