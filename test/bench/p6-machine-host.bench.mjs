// P6: machine events/s through the real host with PostgreSQL (one transaction per event: lock,
// restore, step, versioned update, transition-log row, outbox rows, then relay delivery) against a
// pure step() loop of the same legal events in the same child process. Agent presence events
// (pause / resume alternating), 16 agents dispatching concurrently, one event in flight each.
import path from 'node:path';
import { createUsers, here, pool, runChild } from './realtime-fixtures.mjs';

export default {
  id: 'P6',
  title: 'Machine events/s through the host (PostgreSQL) vs a pure step() loop',
  goal: { ratio: 0.5, direction: 'min' },
  async run({ env, quick, databaseUrl }) {
    const db = pool(databaseUrl, 2);
    const agents = await createUsers(db, { count: 16, role: 'AGENT', tag: 'p6' });
    await db.end();
    const seconds = quick ? 2 : 8;
    // BENCH_PROF=<dir>: the host loop also writes a V8 CPU profile there (where does an event's time go?).
    const result = await runChild(path.join(here, 'servers/host-loop.cjs'), {
      ...env,
      QUEUE_PREFIX: `${env.QUEUE_PREFIX}-p6`,
      BENCH_AGENTS: agents.map((agent) => agent.id).join(','),
      BENCH_SECONDS: String(seconds),
    }, process.env.BENCH_PROF ? { execArgv: ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROF] } : {});
    return {
      value: result.hostRate,
      baseline: result.pureRate,
      ratio: result.hostRate / result.pureRate,
      unit: 'events/s',
      detail: `${result.events} agent pause/resume events by ${result.agents} concurrent agents over ${result.hostSeconds.toFixed(1)} s (relay drained) vs ${result.pureEvents} step() calls in the same process; one DB transaction per event`,
    };
  },
};
