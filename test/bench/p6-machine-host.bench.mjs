// P6: machine events/s through the real host with PostgreSQL (per event: restore, step, versioned
// update, transition-log row, outbox rows, then relay delivery; concurrent agents' writes
// group-committed) against a pure loop of xstate's transition() — the baseline QUALITY.md names —
// over the same legal events in the same child process. Agent presence events (pause / resume
// alternating), 16 agents dispatching concurrently, one event in flight each. The rate of our own
// step() (which skips transition()'s per-call actor) is reported beside it.
import path from 'node:path';
import { createUsers, here, pool, runChild } from './realtime-fixtures.mjs';

export default {
  id: 'P6',
  title: 'Machine events/s through the host (PostgreSQL) vs a pure transition() loop',
  goal: { ratio: 0.5, direction: 'min' },
  async run({ env, quick, databaseUrl }) {
    const db = pool(databaseUrl, 2);
    const agents = await createUsers(db, { count: 16, role: 'AGENT', tag: 'p6' });
    await db.end();
    const seconds = quick ? 2 : 8;
    // BENCH_PROF=<dir>: the host loop also writes a V8 CPU profile there (where does an event's time go?).
    const result = await runChild(
      path.join(here, 'servers/host-loop.cjs'),
      {
        ...env,
        QUEUE_PREFIX: `${env.QUEUE_PREFIX}-p6`,
        BENCH_AGENTS: agents.map((agent) => agent.id).join(','),
        BENCH_SECONDS: String(seconds),
      },
      process.env.BENCH_PROF ? { execArgv: ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROF] } : {},
    );
    return {
      value: result.hostRate,
      baseline: result.pureRate,
      ratio: result.hostRate / result.pureRate,
      unit: 'events/s',
      detail: `${result.events} agent pause/resume events by ${result.agents} concurrent agents over ${result.hostSeconds.toFixed(1)} s (relay drained), each committed with its log and outbox rows (concurrent agents' events share statements) vs ${result.pureEvents} xstate transition() calls in the same process; our step() alone runs ${Math.round(result.stepRate).toLocaleString('en-US')} events/s`,
    };
  },
};
