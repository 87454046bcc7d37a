// Baseline of P4: the bare HTTP adapter under Nest (express), answering the same JSON envelope
// with no guard, validation, interceptor or filter. Prints {"port": N} when ready. Profiles a
// window of its load on SIGUSR2 (profile-on-signal.cjs).
require('./profile-on-signal.cjs');
const express = require('express');

const app = express();
app.get('/api/clock', (req, res) => {
  res.json({ statusCode: 200, data: { serverTime: Date.now(), clientTime: Number(req.query.clientTime) || null }, errorMessage: null });
});
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
