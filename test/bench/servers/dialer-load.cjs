// P7 (dialer worker): one dialer process with the carrier simulator against the real API host.
// BENCH_AGENTS waiting agents (comma-separated user ids), one progressive campaign with as many
// contacts; every contact answers and stays on the line. Measures how fast the dialer originates
// (reservation in PostgreSQL, report to the API, INVITE to the simulator) until every agent holds
// a call, the calls held at once, and, as the baseline, a pure SimulatedCarrier.originate loop.
const path = require('node:path');
const { randomUUID } = require('node:crypto');
const Redis = require('ioredis');
const api = path.resolve(__dirname, '../../../apps/api/dist');
const worker = path.resolve(__dirname, '../../../apps/worker/dist');
const { createApp } = require(`${api}/main.js`);
const { MachineHostService } = require(`${api}/modules/machine-host/machine-host.service.js`);
const { OutboundHostService } = require(`${api}/modules/outbound/outbound-host.service.js`);
const { Dialer } = require(`${worker}/dialer/dialer.js`);
const { SimulatedCarrier } = require(`${worker}/telephony/simulated-carrier.js`);
const { DataSource } = require('typeorm');

const TENANT = '00000000-0000-4000-8000-000000000002';
const agents = process.env.BENCH_AGENTS.split(',');
const PROFILE = {
  answerRate: 1,
  machineRate: 0,
  busyRate: 0,
  failedRate: 0,
  ringSec: { min: 0.2, max: 0.5 },
  talkSec: { mean: 3600, sd: 1 },
};
const ALWAYS = Object.fromEntries(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((d) => [d, [{ from: '00:00', to: '23:59' }]]));

async function main() {
  const app = await createApp({ logger: ['error'] });
  await app.init();
  const host = app.get(MachineHostService, { strict: false });
  const outbound = app.get(OutboundHostService, { strict: false });
  const db = app.get(DataSource, { strict: false });
  for (const id of agents) {
    const actor = { kind: 'agent', id };
    await host.transaction((manager) => host.ensureAgent(manager, id, TENANT, 1, ['break']));
    await host.dispatch('agent', id, { type: 'agent.loggedIn', capacity: 1, pauseReasons: ['break'] }, actor);
  }
  // A list and a running progressive campaign restricted to the bench agents.
  const [list] = await db.query(`INSERT INTO phone_lists (client_id, name, entry_count) VALUES ($1, 'P7 dialer bench', $2) RETURNING id`, [
    TENANT,
    agents.length,
  ]);
  await db.query(
    `INSERT INTO phone_list_entries (list_id, client_id, phone, line)
     SELECT $1, $2, '+3497' || lpad(n::text, 7, '0'), n + 1 FROM generate_series(1, $3) AS n`,
    [list.id, TENANT, agents.length],
  );
  const campaignId = randomUUID();
  await outbound.run(async (manager) => {
    const created = await outbound.createCampaign(manager, campaignId, TENANT, 'progressive', { kind: 'system' });
    await manager.query(
      `INSERT INTO dialer_campaigns (id, tenant_id, name, phone_list_id, mode, calling_windows, agent_ids, status, snapshot, version, last_event)
       VALUES ($1, $2, 'P7 dialer bench', $3, 'progressive', $4, $5, $6, $7, 1, $8)`,
      [campaignId, TENANT, list.id, JSON.stringify(ALWAYS), agents, created.status, created.snapshot, created.record.event],
    );
    await manager.query(
      `INSERT INTO outbound_contacts (tenant_id, campaign_id, entry_id, phone, name) SELECT $1, $2, id, phone, name FROM phone_list_entries WHERE list_id = $3`,
      [TENANT, campaignId, list.id],
    );
  });
  await outbound.dispatchCampaign(campaignId, { type: 'campaign.started' }, { kind: 'system' });

  const redis = new Redis(process.env.REDIS_URL, { maxRetriesPerRequest: null });
  const carrier = new SimulatedCarrier({ seed: 1, profile: PROFILE, maxCallsPerTrunk: 100000 });
  const dialer = new Dialer({
    dataSource: db,
    redis,
    redisUrl: process.env.REDIS_URL,
    queuePrefix: process.env.QUEUE_PREFIX,
    telephony: carrier,
    tickMs: 100,
    ringTimeoutSec: 25,
    maxCallsPerTick: 500,
    tenantIds: [TENANT],
    driver: 'interval',
  });
  for (const id of agents) await host.dispatch('agent', id, { type: 'agent.outboundWaitStarted' }, { kind: 'agent', id });
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  await dialer.start();
  const deadline = Date.now() + 90_000;
  while (dialer.placed < agents.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const originateSeconds = (performance.now() - started) / 1000;
  // Every call answered and connected to its agent through the API host.
  let connected = 0;
  while (Date.now() < deadline) {
    [{ connected }] = await db.query(
      `SELECT count(*)::int AS connected FROM outbound_calls WHERE campaign_id = $1 AND status = 'connected'`,
      [campaignId],
    );
    if (connected >= agents.length) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const connectSeconds = (performance.now() - started) / 1000;
  const held = dialer.liveCalls;
  const rssPerCallKb = (process.memoryUsage().rss - rssBefore) / 1024 / Math.max(1, held);
  await dialer.stop();
  await carrier.close();

  // Baseline: the simulator alone, same process, no database.
  const pure = new SimulatedCarrier({ seed: 2, profile: PROFILE, maxCallsPerTrunk: 1_000_000 });
  const trunk = { host: 'simulator.invalid', port: 5060, transport: 'udp' };
  const pureStart = performance.now();
  let pureCalls = 0;
  while (performance.now() - pureStart < 1000) {
    await pure.originate({
      callId: randomUUID(),
      tenantId: TENANT,
      from: '+10000000000',
      to: '+34970000001',
      trunk,
      ringTimeoutSec: 25,
      amd: true,
    });
    pureCalls++;
  }
  const pureRate = pureCalls / ((performance.now() - pureStart) / 1000);
  await pure.close();
  redis.disconnect();
  await app.close();
  process.stdout.write(
    `${JSON.stringify({ placed: dialer.placed, originateRate: dialer.placed / originateSeconds, originateSeconds, connectSeconds, connected, held, rssPerCallKb, pureRate })}\n`,
  );
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
