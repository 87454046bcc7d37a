// S1: one API process on the 2-core machine at contact-centre scale: the scale load of
// scale-load.mjs (agents, supervisors and open conversations; every agent and supervisor on a
// /staff socket; customers POST messages to Active conversations at 500 msg/s offered) against one
// API process, while the server's CPU (/proc utime+stime) and memory are read.
// Ratio = delivered msg/s ÷ 500, where a run that held the offered rate (P2's rule) delivered 500.
// Full size: 2,000 agents, 200 supervisors, 20,000 conversations; --quick runs a tenth.
import path from 'node:path';
import { here, pool, startIpcServer } from './realtime-fixtures.mjs';
import { TARGET_RATE, measureScaleLoad, scaleFixture } from './scale-load.mjs';

/** S1's measurement, also S2's same-run baseline: { value, baseline, ratio, unit, detail }. */
export async function measureS1({ env, quick, databaseUrl }) {
  const db = pool(databaseUrl, 4);
  let api;
  try {
    const fx = await scaleFixture(db, { quick, tag: 's1' });
    const prefix = `${env.QUEUE_PREFIX}-s1-${Date.now().toString(36)}`;
    // BENCH_PROFILE_DIR=<dir>: the API child also writes a V8 CPU profile there when it stops.
    api = await startIpcServer(
      path.join(here, 'servers/api-server-ipc.cjs'),
      { ...env, QUEUE_PREFIX: prefix, RATE_LIMIT_WEBCHAT_MESSAGES: '1000000' },
      ['--expose-gc', ...(process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [])],
    );
    const load = await measureScaleLoad({ env, quick, fx, url: api.url, servers: [api], components: { api: [api.pid] } });
    return {
      value: load.achieved,
      baseline: TARGET_RATE,
      ratio: load.achieved / TARGET_RATE,
      unit: 'msg/s',
      detail: load.describe('server'),
    };
  } finally {
    await api?.stop();
    await db.end();
  }
}

export default {
  id: 'S1',
  title: 'Scale on one API process: agents, supervisors, open conversations, 500 msg/s offered',
  goal: { ratio: 1, direction: 'min' },
  run: measureS1,
};
