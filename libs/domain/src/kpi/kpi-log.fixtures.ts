import type { AgentStatus } from '../machines/agent-presence.machine';
import type { ConversationStatus } from '../machines/conversation.machine';
import type { AgentLogData, AgentLogRecord, ConversationLogData, ConversationLogRecord } from './kpi-log';

/** Test fixtures only: compact builders for transition-log rows, times in seconds from T0. */
export const T0 = Date.UTC(2026, 0, 15, 9); // Thursday 15 January 2026, 09:00 UTC
export const sec = (seconds: number): number => T0 + seconds * 1000;
export const HOUR: { from: number; to: number } = { from: T0, to: sec(3600) };

const system = { kind: 'system' as const };

export type ConversationRow = [
  from: ConversationStatus | null,
  to: ConversationStatus,
  event: string,
  atSec: number,
  data?: ConversationLogData,
];

export function conversation(id: string, rows: ConversationRow[], base: ConversationLogData = {}): ConversationLogRecord[] {
  return rows.map(([from, to, event, atSec, data]) => ({
    entityId: id,
    tenantId: 't1',
    from,
    to,
    event,
    at: sec(atSec),
    actor: system,
    data: { ...base, ...data },
  }));
}

export type AgentRow = [from: AgentStatus | null, to: AgentStatus, event: string, atSec: number, data?: AgentLogData];

export function agent(id: string, rows: AgentRow[]): AgentLogRecord[] {
  return rows.map(([from, to, event, atSec, data]) => ({
    entityId: id,
    tenantId: 't1',
    from,
    to,
    event,
    at: sec(atSec),
    actor: { kind: 'agent' as const, id },
    ...(data ? { data } : {}),
  }));
}

/** A conversation queued on `line` at `queuedSec` (Transitory one second earlier), then `rest`. */
export function queued(id: string, line: string, queuedSec: number, rest: ConversationRow[], channel = 'webchat'): ConversationLogRecord[] {
  return conversation(
    id,
    [
      [null, 'Transitory', 'xstate.init', queuedSec - 1],
      ['Transitory', 'LiningUp', 'conversation.menuCompleted', queuedSec, { attentionLineId: line }],
      ...rest,
    ],
    { channel, attentionLineId: line },
  );
}
