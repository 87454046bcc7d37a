// P7: predictive dialing occupancy against progressive, both within the abandonment cap, in the
// carrier simulator (libs/domain, built): 20 agents, 4 simulated hours per run, three seeds.
// Progressive never abandons, so "equal abandonment" means both within the 3% cap.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);
const { simulateCampaign } = require(path.resolve(here, '../../libs/domain/dist/index.js'));

const SEEDS = [42, 1, 7];
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;

function scenario(answerRate) {
  return {
    id: `P7@${Math.round(answerRate * 100)}%`,
    title: `Predictive vs progressive occupancy, ${Math.round(answerRate * 100)}% human answers (abandonment ≤ 3%)`,
    goal: { ratio: 1.3, direction: 'min' },
    async run({ quick }) {
      const seeds = quick ? SEEDS.slice(0, 1) : SEEDS;
      const base = { agents: 20, durationSec: 4 * 3600, answerRate };
      const predictive = seeds.map((seed) => simulateCampaign({ ...base, seed, mode: 'predictive' }));
      const progressive = seeds.map((seed) => simulateCampaign({ ...base, seed, mode: 'progressive' }));
      const value = mean(predictive.map((r) => r.occupancy));
      const baseline = mean(progressive.map((r) => r.occupancy));
      const worstAbandon = Math.max(...predictive.map((r) => r.abandonRate));
      return {
        value: value * 100,
        baseline: baseline * 100,
        ratio: value / baseline,
        unit: '% occupancy',
        withinCap: worstAbandon <= 0.03,
        detail: `predictive abandonment ${(worstAbandon * 100).toFixed(2)}% worst of ${seeds.length} seeds (cap 3%); ${Math.round(mean(predictive.map((r) => r.placed)))} calls placed per run`,
      };
    },
  };
}

export default [scenario(0.1), scenario(0.3), scenario(0.6)];
