import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import { byLine, groupBy } from './group-by';
import { handledChats } from './handle-time';
import { agent, conversation, HOUR, queued } from './kpi-log.fixtures';
import { queueArrivals } from './queue-kpis';
import { staffingRecommendation } from './staffing';

// Line A, 09:00–10:00 UTC: 20 chats arrive (one every 180 s from 0), each answered 5 s later.
// Two of them are closed in the hour: one after 120 s, one after 240 s → AHT = (120 + 240) / 2 = 180 s.
//   arrival rate λ = 20 / 3600 = 1/180 per s; traffic A = λ × AHT = 1 Erlang.
// Erlang C, target 80 % within 20 s (Erlang B recurrence B(k) = A·B(k−1) / (k + A·B(k−1)), B(0) = 1):
//   N = 2: B1 = 1/2, B2 = (1/2) / (2 + 1/2) = 0.2; C = 2·0.2 / (2 − 1·0.8) = 1/3;
//          SL = 1 − (1/3)·e^(−(2 − 1)·20/180) = 1 − 0.3333 × 0.8948 = 0.7017 < 0.8
//   N = 3: B3 = 0.2 / (3 + 0.2) = 0.0625; C = 3·0.0625 / (3 − 0.9375) = 0.0909;
//          SL = 1 − 0.0909·e^(−2·20/180) = 1 − 0.0909 × 0.8007 = 0.9272 ≥ 0.8  → 3 agents
const conversations = Array.from({ length: 20 }, (_, index) => {
  const at = index * 180;
  const close: number | undefined = index === 0 ? 120 : index === 1 ? 240 : undefined;
  const answered = queued(`s${index}`, 'A', at, [['LiningUp', 'Active', 'conversation.assigned', at + 5, { agentId: 'a1' }]]);
  return close === undefined
    ? answered
    : [...answered, ...conversation(`s${index}`, [['Active', 'Closed', 'conversation.closed', at + 5 + close]], { attentionLineId: 'A' })];
}).flat();

// Line A's agents: p staffed all hour (3600 s), q staffed 1800 s then paused, r paused all hour.
// Actual staffing = (3600 + 1800 + 0) / 3600 = 1.5 agents.
const lineAgents = [
  ...agent('p', [['loggedOut', 'available', 'agent.loggedIn', -60]]),
  ...agent('q', [
    ['loggedOut', 'available', 'agent.loggedIn', 0],
    ['available', 'paused', 'agent.paused', 1800, { pauseReasonId: 'lunch' }],
  ]),
  ...agent('r', [['available', 'paused', 'agent.paused', -10, { pauseReasonId: 'meeting' }]]),
];

const settings = { targetServiceLevel: 0.8, thresholdSec: 20 };

describe(staffingRecommendation.name, () => {
  it('recommends Erlang C agents from the measured arrivals and AHT, beside the actual staffing', () => {
    const arrivals = groupBy(queueArrivals(conversations, HOUR), byLine).get('A')!;
    const handled = groupBy(handledChats(conversations, HOUR), byLine).get('A')!;
    const advice = staffingRecommendation({ window: HOUR, arrivals, handled, agentRecords: lineAgents, settings });
    expect(advice).toMatchObject({ arrivals: 20, ahtSec: 180, recommendedAgents: 3, actualAgents: 1.5 });
    expect(advice.arrivalRatePerSec).toBeCloseTo(1 / 180, 12);
  });

  it('recommends no agents when nothing arrived, and still reports the staffing', () => {
    expect(staffingRecommendation({ window: HOUR, arrivals: [], handled: [], agentRecords: lineAgents, settings })).toEqual({
      arrivals: 0,
      arrivalRatePerSec: 0,
      ahtSec: null,
      recommendedAgents: 0,
      actualAgents: 1.5,
    });
  });

  it('gives no advice when contacts arrived but none was handled, unless an AHT is assumed', () => {
    const arrivals = queueArrivals(conversations, HOUR);
    expect(staffingRecommendation({ window: HOUR, arrivals, handled: [], agentRecords: [], settings })).toMatchObject({
      ahtSec: null,
      recommendedAgents: null,
      actualAgents: 0,
    });
    expect(
      staffingRecommendation({ window: HOUR, arrivals, handled: [], agentRecords: [], settings: { ...settings, fallbackAhtSec: 180 } }),
    ).toMatchObject({ ahtSec: 180, recommendedAgents: 3 });
  });

  it('refuses a target of 100 % or more', () => {
    expect(() =>
      staffingRecommendation({
        window: HOUR,
        arrivals: [],
        handled: [],
        agentRecords: [],
        settings: { ...settings, targetServiceLevel: 1 },
      }),
    ).toThrow(DomainError);
  });
});
