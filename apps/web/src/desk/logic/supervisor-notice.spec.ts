import { describe, expect, it } from '@jest/globals';
import type { AgentView } from '@centralita/contracts';
import { supervisorNotice } from './supervisor-notice';

const view = (version: number, lastEvent: string, status = 'paused', pauseReasonId: string | null = 'training'): AgentView => ({
  agentId: 'a',
  version,
  tenantId: 't',
  name: 'Ana',
  status,
  pauseReasonId,
  capacity: 3,
  activeCount: 0,
  stateSince: '2026-01-01T09:00:00.000Z',
  lastEvent,
});

describe(supervisorNotice.name, () => {
  it('tells the agent a supervisor paused them, with the reason', () => {
    expect(supervisorNotice(view(1, 'agent.loggedIn', 'available'), view(2, 'agent.forcePaused'))).toEqual({
      key: 'desk.notify.forcePaused',
      reasonId: 'training',
    });
  });

  it('tells the agent a supervisor logged them out', () => {
    expect(supervisorNotice(view(3, 'agent.resumed', 'available'), view(4, 'agent.forceLoggedOut', 'loggedOut', null))).toEqual({
      key: 'desk.notify.forceLoggedOut',
    });
  });

  it('stays quiet for the agent own changes and for a stale or repeated push', () => {
    expect(supervisorNotice(view(1, 'agent.loggedIn', 'available'), view(2, 'agent.paused'))).toBeNull();
    expect(supervisorNotice(view(2, 'agent.forcePaused'), view(2, 'agent.forcePaused'))).toBeNull();
  });
});
