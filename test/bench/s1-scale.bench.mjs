// S1: one API process and the worker on the 2-core machine at contact-centre scale, as QUALITY.md
// states it (s1-load.mjs): 2,000 agent and 200 supervisor sockets, 20,000 open conversations,
// customer messages and agent replies 1:1, routing churn of 20 closes + 20 new widget chats per
// second, and a rate sweep: S1's value is the highest total msg/s held at p99 ≤ 100 ms (POST →
// the handling agent's socket). Ratio = value ÷ 500 (the goal; 1,000 the stretch). The slopes
// (API CPU per message with 200 vs 0 supervisors, 40,000 vs 10,000 open conversations) are in the
// detail. --quick runs a tenth of every size and of the churn, with shorter steps.
import { measureOneProcess } from './s1-load.mjs';

export const S1_GOAL_RATE = 500;

/** S1's row: { value, baseline, ratio, unit, detail }. */
export async function measureS1({ env, quick, databaseUrl }) {
  const load = await measureOneProcess({ env, quick, databaseUrl, tag: 's1' });
  return {
    value: load.value,
    baseline: S1_GOAL_RATE,
    ratio: load.value / S1_GOAL_RATE,
    unit: 'msg/s',
    bound: load.bound,
    detail: load.describe(),
  };
}

export default {
  id: 'S1',
  title: 'Scale on one API process + worker: highest msg/s (customer + agent 1:1, routing churn) held at p99 ≤ 100 ms',
  goal: { ratio: 1, direction: 'min' },
  run: measureS1,
};
