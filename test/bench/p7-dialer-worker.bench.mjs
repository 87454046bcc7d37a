// P7 (dialer worker): originate rate and calls held at once by ONE dialer process with the carrier
// simulator, end to end (PostgreSQL reservation per call, report to the API host which creates,
// steps and connects every call to a waiting agent), against the simulator's own originate loop.
import path from 'node:path';
import { createUsers, here, pool, runChild } from './realtime-fixtures.mjs';

export default {
  id: 'P7-dialer',
  title: 'Dialer worker: originates/s until every waiting agent holds a call (simulator) vs the bare simulator',
  // Issue 7 asks for the originate rate and the calls one worker holds; QUALITY.md sets no goal for them.
  goal: null,
  async run({ env, quick, databaseUrl }) {
    const db = pool(databaseUrl, 2);
    const agents = await createUsers(db, { count: quick ? 100 : 400, role: 'AGENT', tag: 'p7d' });
    await db.end();
    const result = await runChild(path.join(here, 'servers/dialer-load.cjs'), {
      ...env,
      QUEUE_PREFIX: `${env.QUEUE_PREFIX}-p7d-${Date.now().toString(36)}`,
      BENCH_AGENTS: agents.map((agent) => agent.id).join(','),
    });
    return {
      value: result.originateRate,
      baseline: result.pureRate,
      ratio: result.originateRate / result.pureRate,
      unit: 'originates/s',
      detail: `${result.placed} calls placed in ${result.originateSeconds.toFixed(2)} s by one dialer; ${result.connected} connected to agents through the API host after ${result.connectSeconds.toFixed(2)} s; ${result.held} calls held at once (~${Math.round(result.rssPerCallKb)} KB RSS per call); bare simulator ${Math.round(result.pureRate)} originates/s`,
    };
  },
};
