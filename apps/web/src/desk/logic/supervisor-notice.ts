import type { AgentView } from '@centralita/contracts';

/** What an agent is told when a supervisor changed their state: an i18n key and its values, or null. */
export interface SupervisorNotice {
  key: 'desk.notify.forcePaused' | 'desk.notify.forceLoggedOut';
  reasonId?: string;
}

/**
 * A push of the agent's own presence that a supervisor caused (the machine's `agent.forcePaused` /
 * `agent.forceLoggedOut`), so the desk can say why the state changed under the agent's hands.
 * Only a newer version counts: a resync of an old state never repeats the notice.
 */
export function supervisorNotice(before: AgentView | undefined, after: AgentView): SupervisorNotice | null {
  if (before && after.version <= before.version) return null;
  if (after.lastEvent === 'agent.forcePaused') return { key: 'desk.notify.forcePaused', reasonId: after.pauseReasonId ?? undefined };
  if (after.lastEvent === 'agent.forceLoggedOut') return { key: 'desk.notify.forceLoggedOut' };
  return null;
}
