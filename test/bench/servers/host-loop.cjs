// P6: machine events per second through the real host (MachineHostService.dispatch: restore,
// step, versioned update, transition-log row, outbox rows, relay delivery after commit) against a
// pure loop of xstate's transition() over the same events in this same process (recorded, no longer
// P6's baseline). Agents come from BENCH_AGENTS (comma-separated user ids); prints one JSON line with
// the rates and `samples`: the rows one pause and one resume of the host wrote (agent row columns,
// transition-log row, outbox rows), which the raw pg loop (raw-machine-loop.cjs) writes in turn.
const path = require('node:path');
const dist = path.resolve(__dirname, '../../../apps/api/dist');
const { createApp } = require(`${dist}/main.js`);
const { MachineHostService } = require(`${dist}/modules/machine-host/machine-host.service.js`);
const { OutboxRelay } = require(`${dist}/modules/machine-host/outbox-relay.service.js`);
const domain = require(path.resolve(__dirname, '../../../libs/domain/dist/index.js'));

const TENANT = '00000000-0000-4000-8000-000000000002';
const agents = process.env.BENCH_AGENTS.split(',');
const seconds = Number(process.env.BENCH_SECONDS || 5);
const REASONS = ['break'];

const eventFor = (i) => (i % 2 === 0 ? { type: 'agent.paused', reasonId: 'break' } : { type: 'agent.resumed' });

async function main() {
  const app = await createApp({ logger: ['error'] });
  await app.init();
  const host = app.get(MachineHostService, { strict: false });
  const relay = app.get(OutboxRelay, { strict: false });
  for (const id of agents) {
    const actor = { kind: 'agent', id };
    await host.transaction((manager) => host.ensureAgent(manager, id, TENANT, 1, REASONS));
    await host.dispatch('agent', id, { type: 'agent.loggedIn', capacity: 1, pauseReasons: REASONS }, actor);
  }
  // Warm-up, then the timed run: every agent alternates pause / resume, one event at a time each.
  const run = async (ms) => {
    const end = performance.now() + ms;
    let events = 0;
    await Promise.all(
      agents.map(async (id, k) => {
        const actor = { kind: 'agent', id };
        for (let i = 0; performance.now() < end; i++) {
          await host.dispatch('agent', id, eventFor(i), actor);
          events++;
        }
        // Leave every agent available for the next round.
        const [row] = await host['dataSource'].query(`SELECT status FROM agent_presence WHERE user_id = $1`, [id]);
        if (row.status === 'paused') {
          await host.dispatch('agent', id, { type: 'agent.resumed' }, actor);
          events++;
        }
        void k;
      }),
    );
    return events;
  };
  await run(500);
  await relay.idle();
  const started = performance.now();
  const events = await run(seconds * 1000);
  await relay.idle(); // the relay's deliveries (socket push, routing job) are part of the host's work
  const hostSeconds = (performance.now() - started) / 1000;
  const samples = await sampleWrites(host, relay, agents[0]);

  // The pure loops, the same alternating events on one snapshot, no I/O. The baseline is what
  // QUALITY.md names: xstate's own pure transition(). Our step() (which the host runs) is timed as
  // well, for the record: it no longer goes through transition()'s per-call actor (machine-step.ts).
  const { agentPresenceMachine, initial, step } = domain;
  const { transition } = require('xstate');
  const start = () => {
    let snapshot = initial(agentPresenceMachine, {
      agentId: 'a',
      tenantId: TENANT,
      capacity: 1,
      pauseReasons: REASONS,
      at: 1,
      actor: { kind: 'system' },
    }).snapshot;
    snapshot = step(agentPresenceMachine, snapshot, { type: 'agent.loggedIn', at: 2, actor: { kind: 'agent', id: 'a' } }).snapshot;
    return snapshot;
  };
  const loop = (ms, apply) => {
    let snapshot = start();
    let at = 3;
    const end = performance.now() + ms;
    let n = 0;
    while (performance.now() < end) {
      for (let j = 0; j < 100; j++, n++) {
        const next = apply(snapshot, { ...eventFor(n), at: at++, actor: { kind: 'agent', id: 'a' } });
        if (next === snapshot) throw new Error('pure loop event refused');
        snapshot = next;
      }
    }
    return n;
  };
  const viaTransition = (snapshot, event) => transition(agentPresenceMachine, snapshot, event)[0];
  const viaStep = (snapshot, event) => step(agentPresenceMachine, snapshot, event).snapshot;
  const timed = (apply) => {
    loop(300, apply);
    const began = performance.now();
    const events = loop(Math.min(seconds, 3) * 1000, apply);
    return { events, rate: events / ((performance.now() - began) / 1000) };
  };
  const pure = timed(viaTransition);
  const stepped = timed(viaStep);
  await app.close();
  process.stdout.write(
    `${JSON.stringify({ hostRate: events / hostSeconds, events, hostSeconds, pureRate: pure.rate, pureEvents: pure.events, stepRate: stepped.rate, agents: agents.length, samples })}\n`,
  );
  process.exit(0);
}

/**
 * One pause and one resume of `agentId` after the timed run, with what each wrote: the outbox rows
 * the relay is handed (caught on their way to relay.kick, which then runs as usual), the agent row
 * as the statement left it and its transition-log row. The raw loop writes the same rows.
 */
async function sampleWrites(host, relay, agentId) {
  const actor = { kind: 'agent', id: agentId };
  const kick = relay.kick;
  const samples = {};
  try {
    for (const event of [eventFor(0), eventFor(1)]) {
      let outbox = [];
      relay.kick = function (ids, records) {
        outbox = records.map((record) => ({ topic: record.topic, payload: record.payload }));
        return kick.apply(this, [ids, records]);
      };
      const row = await host.dispatch('agent', agentId, event, actor);
      const [log] = await host['dataSource'].query(
        `SELECT entity_type, from_state, to_state, event, actor_kind, actor_id, data FROM transition_log
         WHERE entity_id = $1 ORDER BY version DESC LIMIT 1`,
        [agentId],
      );
      samples[event.type] = {
        row: {
          status: row.status,
          capacity: row.capacity,
          active_count: row.active_count,
          snapshot: row.snapshot,
          last_event: row.last_event,
        },
        log,
        outbox,
      };
    }
  } finally {
    relay.kick = kick;
  }
  await relay.idle();
  return samples;
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
