// S1: one API process and the worker on the 2-core machine at contact-centre scale, as QUALITY.md
// states it (s1-load.mjs): 2,000 agent and 200 supervisor sockets, 20,000 open conversations,
// customer messages and agent replies 1:1, routing churn of 20 closes + 20 new widget chats per
// second, and a rate sweep: S1's value is the highest total msg/s held at p99 ≤ 100 ms (POST →
// the handling agent's socket). Ratio = value ÷ 500 (the goal; 1,000 the stretch). The slopes
// (API CPU per message with 200 vs 0 supervisors, 40,000 vs 10,000 open conversations) are in the
// detail. --quick runs a tenth of every size and of the churn, with shorter steps.
import path from 'node:path';
import { here, pool, startIpcServer } from './realtime-fixtures.mjs';
import { scaleFixture } from './scale-load.mjs';
import { measureS1Load, startWorker } from './s1-load.mjs';

export const S1_GOAL_RATE = 500;

/** S1's measurement, also S2's same-run baseline: { value, baseline, ratio, unit, detail }. */
export async function measureS1({ env, quick, databaseUrl }) {
  const db = pool(databaseUrl, 4);
  const stops = [];
  try {
    const fx = await scaleFixture(db, { quick, tag: 's1' });
    // The API and the worker share one queue prefix, as a deployment's processes do.
    const shared = {
      ...env,
      QUEUE_PREFIX: `${env.QUEUE_PREFIX}-s1-${Date.now().toString(36)}`,
      RATE_LIMIT_WEBCHAT_MESSAGES: '1000000',
      RATE_LIMIT_WEBCHAT_START_IP: '1000000',
    };
    // BENCH_PROFILE_DIR=<dir>: the API child also writes a V8 CPU profile there when it stops.
    const api = await startIpcServer(path.join(here, 'servers/api-server-ipc.cjs'), shared, [
      '--expose-gc',
      ...(process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []),
    ]);
    stops.push(() => api.stop());
    const worker = await startWorker(shared);
    stops.push(() => worker.stop());
    const load = await measureS1Load({ env, quick, fx, db, api, worker });
    return {
      value: load.value,
      baseline: S1_GOAL_RATE,
      ratio: load.value / S1_GOAL_RATE,
      unit: 'msg/s',
      detail: load.describe(),
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await db.end();
  }
}

export default {
  id: 'S1',
  title: 'Scale on one API process + worker: highest msg/s (customer + agent 1:1, routing churn) held at p99 ≤ 100 ms',
  goal: { ratio: 1, direction: 'min' },
  run: measureS1,
};
