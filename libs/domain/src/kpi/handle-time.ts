import type { AgentStatus } from '../machines/agent-presence.machine';
import type { ConversationEvent } from '../machines/conversation.machine';
import { CALL_CHANNEL, type AgentLogRecord, type ConversationLogRecord, type TimeWindow } from './kpi-log';
import { byEntity, ratio, requireWindow } from './kpi-internal';

/**
 * One piece of work an agent finished: a chat they held, or a call they talked on and wrapped up.
 * Handle time = talk + after-call work. Hold is not a state of any machine yet, so a call on hold
 * is still `inCall` and its hold time is inside `talkMs`.
 */
export interface HandledContact {
  kind: 'chat' | 'inboundCall' | 'outboundCall';
  /** The conversation id for a chat; the agent id for a call (calls are read from presence rows). */
  entityId: string;
  tenantId: string;
  agentId: string | null;
  attentionLineId: string | null;
  channel: string | null;
  startedAt: number;
  endedAt: number;
  talkMs: number;
  afterCallWorkMs: number;
  handleMs: number;
  /** An inbound call's conversation, when telephony gave it (the row entering inCall); absent for chats. */
  conversationId?: string | null;
}

const TRANSFERRED: ConversationEvent['type'] = 'conversation.transferred';

/**
 * Chats handled, one per stay in Active that ENDED in the window (closed, sent to Inquest,
 * transferred, or timed out for inactivity). A chat transferred from one agent to another is one
 * handled contact for each of them, each with their own part, so per-agent AHT is honest.
 *
 * Inquest is not handle time: leaving Active releases the agent (`releaseAgent`), and the poll
 * runs between the customer and the system. Chats have no after-call work state.
 * Stays still open at `to` are not finished and are left out. A phone conversation's Active stay
 * is not handle time (it begins when the phone rings): calls are read from presence (`handledCalls`).
 */
export function handledChats(records: readonly ConversationLogRecord[], window: TimeWindow): HandledContact[] {
  requireWindow(window);
  const result: HandledContact[] = [];
  for (const [conversationId, timeline] of byEntity(records)) {
    let channel: string | null = null;
    let line: string | null = null;
    let open: HandledContact | null = null;
    for (const record of timeline) {
      if (record.at >= window.to) break;
      channel = record.data?.channel ?? channel;
      if (record.data?.attentionLineId !== undefined) line = record.data.attentionLineId;
      // Messages while Active are Active → Active rows; only a transfer to an agent re-enters.
      const reentered = record.event === TRANSFERRED;
      if (open && record.from === 'Active' && (record.to !== 'Active' || reentered)) {
        open.endedAt = record.at;
        open.talkMs = open.handleMs = record.at - open.startedAt;
        if (record.at >= window.from && open.channel !== CALL_CHANNEL) result.push(open);
        open = null;
      }
      if (record.to === 'Active' && (record.from !== 'Active' || reentered)) {
        open = {
          kind: 'chat',
          entityId: conversationId,
          tenantId: record.tenantId,
          agentId: record.data?.agentId ?? null,
          attentionLineId: line,
          channel,
          startedAt: record.at,
          endedAt: record.at,
          talkMs: 0,
          afterCallWorkMs: 0,
          handleMs: 0,
        };
      }
    }
  }
  return result;
}

const TALK: Partial<Record<AgentStatus, HandledContact['kind']>> = { inCall: 'inboundCall', outboundCall: 'outboundCall' };

/**
 * Calls handled, read from agent presence: talk is the stay in `inCall` (or `outboundCall`), after-
 * call work the `afterCallWork` stay that follows it, and a call is finished when that wrap-up
 * ends (back to ready, a pause, a logout). Calls whose wrap-up ENDED in the window count, in full.
 */
export function handledCalls(records: readonly AgentLogRecord[], window: TimeWindow): HandledContact[] {
  requireWindow(window);
  const result: HandledContact[] = [];
  for (const [agentId, timeline] of byEntity(records)) {
    let open: HandledContact | null = null;
    let talkEndedAt: number | null = null;
    const finish = (at: number) => {
      if (!open || talkEndedAt === null) return;
      open.endedAt = at;
      open.talkMs = talkEndedAt - open.startedAt;
      open.afterCallWorkMs = at - talkEndedAt;
      open.handleMs = at - open.startedAt;
      if (at >= window.from) result.push(open);
      open = null;
      talkEndedAt = null;
    };
    for (const record of timeline) {
      if (record.at >= window.to) break;
      if (record.from === record.to) continue;
      if (open && talkEndedAt === null && record.from !== null && TALK[record.from]) {
        talkEndedAt = record.at;
        if (record.to !== 'afterCallWork') finish(record.at);
      } else if (open && talkEndedAt !== null && record.from === 'afterCallWork') finish(record.at);
      const kind = TALK[record.to];
      if (kind) {
        open = {
          kind,
          entityId: agentId,
          tenantId: record.tenantId,
          agentId,
          attentionLineId: record.data?.attentionLineId ?? null,
          channel: record.data?.channel ?? null,
          ...(record.data?.conversationId ? { conversationId: record.data.conversationId } : {}),
          startedAt: record.at,
          endedAt: record.at,
          talkMs: 0,
          afterCallWorkMs: 0,
          handleMs: 0,
        };
        talkEndedAt = null;
      }
    }
  }
  return result;
}

/** Mean handle time in ms; null when nothing was handled. */
export function averageHandleTimeMs(contacts: readonly HandledContact[]): number | null {
  return ratio(
    contacts.reduce((total, contact) => total + contact.handleMs, 0),
    contacts.length,
  );
}
