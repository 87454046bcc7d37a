// The built API (apps/api/dist) listening on a free loopback port; prints {"port": N} when ready.
// Profiles a window of its load on SIGUSR2 (profile-on-signal.cjs).
require('./profile-on-signal.cjs');
const path = require('node:path');
const { createApp } = require(path.resolve(__dirname, '../../../apps/api/dist/main.js'));

createApp({ logger: ['error'] }).then(async (app) => {
  await app.listen(0, '127.0.0.1');
  process.stdout.write(`${JSON.stringify({ port: app.getHttpServer().address().port })}\n`);
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
});
