import { describe, expect, it } from '@jest/globals';
import { CONVERSATION_STATUS_CODES } from '@centralita/contracts';
import { AGENT_STATUSES, agentPresenceMachine } from './agent-presence.machine';
import { CONVERSATION_STATUSES, conversationMachine } from './conversation.machine';
import { OUTBOUND_CALL_STATUSES, outboundCallMachine } from '../outbound/outbound-call.machine';
import {
  ASSIGNABLE_AGENT_STATUSES,
  ENDED_CONVERSATION_STATUSES,
  leafStatesHandling,
  leafStatesUnder,
  OPEN_CONVERSATION_STATUSES,
  READY_AGENT_STATUSES,
  sqlStatusList,
} from './status-sets';

describe('status groups read from the machines', () => {
  it('the declared status lists are exactly the leaf states of each machine', () => {
    expect([...leafStatesUnder(conversationMachine, [])].sort()).toEqual([...CONVERSATION_STATUSES].sort());
    expect([...leafStatesUnder(agentPresenceMachine, [])].sort()).toEqual([...AGENT_STATUSES].sort());
    expect([...leafStatesUnder(outboundCallMachine, [])].sort()).toEqual([...OUTBOUND_CALL_STATUSES].sort());
    // The export labels' copy in libs/contracts (which cannot import the machines) stays the same list.
    expect(CONVERSATION_STATUS_CODES).toEqual(CONVERSATION_STATUSES);
  });

  it('open conversations are the states that take a customer message; the rest have ended', () => {
    expect(OPEN_CONVERSATION_STATUSES).toEqual(['Transitory', 'LiningUp', 'Active']);
    expect(ENDED_CONVERSATION_STATUSES).toEqual(['Inquest', 'Closed']);
  });

  it('ready agents are the leaves of ready; assignable ones are where the machine takes an assignment', () => {
    expect(READY_AGENT_STATUSES).toEqual(['available', 'busy']);
    expect(ASSIGNABLE_AGENT_STATUSES).toEqual(['available', 'busy', 'inCall']);
    // An event handled on a parent state counts for every leaf below it.
    expect(leafStatesHandling(agentPresenceMachine, 'agent.loggedOut')).toEqual([
      'available',
      'busy',
      'paused',
      'afterCallWork',
      'waitingOutboundCall',
    ]);
  });

  it('refuses an unknown path', () => {
    expect(() => leafStatesUnder(agentPresenceMachine, ['loggedIn', 'nowhere'])).toThrow(/no state loggedIn.nowhere/);
  });

  it('writes a SQL literal list of plain state names only', () => {
    expect(sqlStatusList(OPEN_CONVERSATION_STATUSES)).toBe("('Transitory', 'LiningUp', 'Active')");
    expect(() => sqlStatusList(["x'); DROP TABLE conversations; --"])).toThrow(/Not a state name/);
    expect(() => sqlStatusList([])).toThrow(/empty/);
  });
});
