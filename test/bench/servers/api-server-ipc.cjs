// The built API (as api-server.cjs) plus an IPC channel answering {type: 'memory'} with
// process.memoryUsage() after a forced GC (run with --expose-gc) and the staff socket count (P5, S1).
const path = require('node:path');
require('./profile-on-signal.cjs');
const { createApp } = require(path.resolve(__dirname, '../../../apps/api/dist/main.js'));

createApp({ logger: ['error'] }).then(async (app) => {
  await app.listen(0, '127.0.0.1');
  process.on('message', (message) => {
    if (message && message.type === 'memory') {
      if (global.gc) for (let i = 0; i < 3; i++) global.gc();
      process.send({ type: 'memory', ...process.memoryUsage() });
    }
  });
  process.stdout.write(`${JSON.stringify({ port: app.getHttpServer().address().port })}\n`);
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
});
