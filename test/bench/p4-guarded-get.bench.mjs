// P4: a guarded, validated GET that touches no database (GET /api/clock: JWT check, principal
// from the Redis cache, query validation, envelope) against the bare express adapter.
import path from 'node:path';
import { load, median, startServer } from './lib.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);

export default {
  id: 'P4',
  title: 'Guarded, validated GET vs the bare HTTP adapter',
  goal: { ratio: 0.7, direction: 'min' },
  async run({ env, quick }) {
    const api = await startServer(path.join(here, 'servers/api-server.cjs'), env);
    const bare = await startServer(path.join(here, 'servers/bare-express.cjs'), env);
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
      // CPU per request of each server as well: on a shared machine the rates drift with the
      // neighbours, the CPU a request costs much less (it is what the ratio really compares).
      const measured = async (server, options) => {
        const cpuBefore = server.cpuSeconds();
        const result = await load(server.url, options);
        return { ...result, cpuUs: ((server.cpuSeconds() - cpuBefore) * 1e6) / result.requests };
      };
      for (let round = 0; round < rounds; round++) {
        baseline.push(await measured(bare, { path: '/api/clock?clientTime=1', seconds }));
        guarded.push(await measured(api, { path: '/api/clock?clientTime=1', headers, seconds }));
      }
      const value = median(guarded.map((r) => r.rps));
      const base = median(baseline.map((r) => r.rps));
      return {
        value,
        baseline: base,
        ratio: value / base,
        unit: 'req/s',
        detail: `${rounds}×${seconds} s per side, 20 connections; p99 ${median(guarded.map((r) => r.p99Ms))} ms guarded vs ${median(baseline.map((r) => r.p99Ms))} ms bare; server CPU per request ${median(guarded.map((r) => r.cpuUs)).toFixed(0)} µs guarded vs ${median(baseline.map((r) => r.cpuUs)).toFixed(0)} µs bare`,
      };
    } finally {
      await api.stop();
      await bare.stop();
    }
  },
};
