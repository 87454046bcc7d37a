import type { AgentStatus, ConversationStatus } from '@centralita/domain';

/** One colour per conversation status (spec §4), used by every badge, chip and chart. */
export const CONVERSATION_STATUS_COLORS: Record<ConversationStatus, string> = {
  Transitory: '#64748b',
  LiningUp: '#d97706',
  Active: '#16a34a',
  Inquest: '#7c3aed',
  Closed: '#475569',
};

/** One colour per agent state (spec §4). */
export const AGENT_STATUS_COLORS: Record<AgentStatus, string> = {
  available: '#16a34a',
  busy: '#2563eb',
  paused: '#d97706',
  inCall: '#db2777',
  afterCallWork: '#0891b2',
  outboundCall: '#9333ea',
  waitingOutboundCall: '#65a30d',
  loggedOut: '#94a3b8',
};

const FALLBACK = '#64748b';

export function conversationStatusColor(status: string): string {
  return CONVERSATION_STATUS_COLORS[status as ConversationStatus] ?? FALLBACK;
}

export function agentStatusColor(status: string): string {
  return AGENT_STATUS_COLORS[status as AgentStatus] ?? FALLBACK;
}
