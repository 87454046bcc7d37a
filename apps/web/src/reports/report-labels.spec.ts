import { describe, expect, it } from '@jest/globals';
import {
  CALL_DISPOSITION_CODES,
  CALL_OUTCOME_CODES,
  CONVERSATION_EVENT_CODES,
  CONVERSATION_STATUS_CODES,
  DOWNLOAD_LABELS,
  LANGUAGES,
  OUTBOUND_DISPOSITIONS,
} from '@centralita/contracts';
import { DESK_DICTIONARIES } from '../locales/desk';

// The report labels live in @centralita/contracts so the worker's export files and the console's
// table say the same; these checks keep them in step with the machines and with the desk's words.
describe('report value labels', () => {
  it('cover every state, event and call outcome the machines know', async () => {
    const { CALL_OUTCOMES, CONVERSATION_STATUSES, conversationMachine } = await import('@centralita/domain');
    expect([...CONVERSATION_STATUS_CODES].sort()).toEqual([...CONVERSATION_STATUSES].sort());
    expect([...CALL_OUTCOME_CODES].sort()).toEqual([...CALL_OUTCOMES].sort());
    expect([...CALL_DISPOSITION_CODES].sort()).toEqual([...OUTBOUND_DISPOSITIONS].sort());
    const events = (conversationMachine.root as unknown as { events: string[] }).events;
    expect(events.filter((event) => !(CONVERSATION_EVENT_CODES as readonly string[]).includes(event))).toEqual([]);
  });

  it.each(LANGUAGES)('name a conversation status in %s as the agent desk does', (language) => {
    const desk = DESK_DICTIONARIES[language] as unknown as { conversationStatus: Record<string, string> };
    expect(DOWNLOAD_LABELS[language].conversationStatus).toEqual(desk.conversationStatus);
  });
});
