import { describe, expect, it } from '@jest/globals';
import { LANGUAGES } from '@centralita/contracts';
import { DESK_DICTIONARIES } from './index';

// Completeness, placeholders and translation of the desk strings: ../namespaces.spec.ts.
describe('desk locales', () => {
  it('names every conversation status and agent state the machines know', async () => {
    const { AGENT_STATUSES, CONVERSATION_STATUSES } = await import('@centralita/domain');
    for (const lng of LANGUAGES) {
      const dict = DESK_DICTIONARIES[lng] as unknown as { conversationStatus: Record<string, string>; agentStatus: Record<string, string> };
      expect(CONVERSATION_STATUSES.filter((status) => !dict.conversationStatus[status])).toEqual([]);
      expect(AGENT_STATUSES.filter((status) => !dict.agentStatus[status])).toEqual([]);
    }
  });
});
