// P4: a guarded, validated GET that touches no database (GET /api/clock: JWT check, principal
// from the Redis cache, query validation, envelope) against the bare express adapter. The ratio is
// what QUALITY.md poses: server CPU per request, guarded ÷ bare (from /proc, same load on both);
// throughput and p99 are kept in the detail for the record.
import os from 'node:os';
import path from 'node:path';
import { load, median, packageGap, profileShares, profileWindow, startServer } from './lib.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);

export default {
  id: 'P4',
  title: 'CPU per guarded, validated GET vs the bare HTTP adapter',
  goal: { ratio: 1.4, direction: 'max' },
  async run({ env, quick }) {
    const profileFile = path.join(os.tmpdir(), `centralita-p4-${process.pid}.cpuprofile`);
    const api = await startServer(path.join(here, 'servers/api-server.cjs'), { ...env, BENCH_PROFILE_OUT: profileFile });
    const bare = await startServer(path.join(here, 'servers/bare-express.cjs'), { ...env, BENCH_PROFILE_OUT: profileFile });
    try {
      const login = await fetch(`${api.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'agent1@demo.centralita.io', password: 'centralita-demo' }),
      });
      const { data } = await login.json();
      const headers = { Authorization: `Bearer ${data.accessToken}` };
      const seconds = quick ? 2 : 5;
      const rounds = quick ? 1 : 3;
      const guarded = [];
      const baseline = [];
      // Warm both, then alternate so drift on a shared machine hits both sides alike.
      await load(api.url, { path: '/api/clock?clientTime=1', headers, seconds: 1 });
      await load(bare.url, { path: '/api/clock?clientTime=1', seconds: 1 });
      // CPU per request of each server: on a shared machine the rates drift with the neighbours,
      // the CPU a request costs much less, which is why QUALITY.md poses P4 in it.
      const measured = async (server, options) => {
        const cpuBefore = server.cpuSeconds();
        const result = await load(server.url, options);
        return { ...result, cpuUs: ((server.cpuSeconds() - cpuBefore) * 1e6) / result.requests };
      };
      for (let round = 0; round < rounds; round++) {
        baseline.push(await measured(bare, { path: '/api/clock?clientTime=1', seconds }));
        guarded.push(await measured(api, { path: '/api/clock?clientTime=1', headers, seconds }));
      }
      const value = median(guarded.map((r) => r.cpuUs));
      const base = median(baseline.map((r) => r.cpuUs));
      // What bounds it: one more window per side, profiled (not counted above: the profiler costs
      // CPU), and what the guarded request spends more than the bare one on, by package.
      const profiled = async (server, headersOf) => {
        const { result, profile } = await profileWindow(server, profileFile, () =>
          measured(server, { path: '/api/clock?clientTime=1', headers: headersOf, seconds: quick ? 1 : 3 }),
        );
        return { cpuUs: result.cpuUs, shares: profileShares(profile) };
      };
      const gap = packageGap(await profiled(api, headers), await profiled(bare, {}));
      return {
        value,
        baseline: base,
        ratio: value / base,
        unit: 'µs CPU/req',
        bound: `${Math.round(value - base)} µs more per request than the bare adapter; what grew, by package (a profiled window per side): ${gap}`,
        detail: `server CPU per request (user + system from /proc over each window ÷ requests answered), median of ${rounds}×${seconds} s per side alternating, 20 connections; throughput ${Math.round(median(guarded.map((r) => r.rps))).toLocaleString('en-US')} req/s guarded vs ${Math.round(median(baseline.map((r) => r.rps))).toLocaleString('en-US')} req/s bare; p99 ${median(guarded.map((r) => r.p99Ms))} ms guarded vs ${median(baseline.map((r) => r.p99Ms))} ms bare`,
      };
    } finally {
      await api.stop();
      await bare.stop();
    }
  },
};
