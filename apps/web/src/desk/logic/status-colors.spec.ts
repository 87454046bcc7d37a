import { describe, expect, it } from '@jest/globals';
import { AGENT_STATUSES, CONVERSATION_STATUSES } from '@centralita/domain';
import { AGENT_STATUS_COLORS, agentStatusColor, CONVERSATION_STATUS_COLORS, conversationStatusColor } from './status-colors';

describe('status colours', () => {
  it('gives every conversation status its own colour', () => {
    expect(Object.keys(CONVERSATION_STATUS_COLORS).sort()).toEqual([...CONVERSATION_STATUSES].sort());
    expect(new Set(Object.values(CONVERSATION_STATUS_COLORS)).size).toBe(CONVERSATION_STATUSES.length);
  });

  it('gives every agent state its own colour', () => {
    expect(Object.keys(AGENT_STATUS_COLORS).sort()).toEqual([...AGENT_STATUSES].sort());
    expect(new Set(Object.values(AGENT_STATUS_COLORS)).size).toBe(AGENT_STATUSES.length);
  });

  it('falls back to a neutral colour for unknown values', () => {
    expect(conversationStatusColor('Nope')).toBe('#64748b');
    expect(agentStatusColor('nope')).toBe('#64748b');
  });
});
