import { describe, expect, it } from '@jest/globals';
import { selectAgent, type AgentCandidate } from './select-agent';

const candidate = (agentId: string, activeConversations: number, capacity: number, idleSince: number): AgentCandidate => ({
  agentId,
  activeConversations,
  capacity,
  idleSince,
});

describe(selectAgent.name, () => {
  it('picks the agent idle the longest by default', () => {
    const pick = selectAgent([candidate('a', 0, 3, 3_000), candidate('b', 2, 3, 1_000), candidate('c', 0, 3, 2_000)]);
    expect(pick?.agentId).toBe('b');
  });

  it('picks the agent with the lowest share of their capacity in use under least-occupied', () => {
    // a: 1/2 = 50 %, b: 2/5 = 40 %, c: 1/3 ≈ 33 %.
    const pick = selectAgent([candidate('a', 1, 2, 1_000), candidate('b', 2, 5, 2_000), candidate('c', 1, 3, 3_000)], 'least-occupied');
    expect(pick?.agentId).toBe('c');
  });

  it('skips agents with no free slot', () => {
    const pick = selectAgent([candidate('a', 3, 3, 1_000), candidate('b', 1, 3, 2_000)]);
    expect(pick?.agentId).toBe('b');
  });

  it('returns null when nobody has room', () => {
    expect(selectAgent([candidate('a', 2, 2, 1_000)])).toBeNull();
    expect(selectAgent([])).toBeNull();
  });

  it('breaks a longest-idle tie by occupancy, then by agent id', () => {
    expect(selectAgent([candidate('a', 2, 4, 1_000), candidate('b', 1, 4, 1_000)])?.agentId).toBe('b');
    expect(selectAgent([candidate('d', 1, 4, 1_000), candidate('c', 1, 4, 1_000)])?.agentId).toBe('c');
  });

  it('breaks a least-occupied tie by idle time, then by agent id', () => {
    // 1/2 and 2/4 are the same occupancy.
    expect(selectAgent([candidate('a', 1, 2, 2_000), candidate('b', 2, 4, 1_000)], 'least-occupied')?.agentId).toBe('b');
    expect(selectAgent([candidate('d', 0, 4, 1_000), candidate('c', 0, 2, 1_000)], 'least-occupied')?.agentId).toBe('c');
  });

  it('picks the same agent whatever order the candidates arrive in', () => {
    const candidates = [candidate('x', 1, 3, 500), candidate('y', 1, 3, 500), candidate('z', 0, 3, 900)];
    const picks = [candidates, [...candidates].reverse(), [candidates[2], candidates[0], candidates[1]]].map(
      (order) => selectAgent(order)?.agentId,
    );
    expect(new Set(picks)).toEqual(new Set(['x']));
  });
});
