import type { AgentStatus } from '../machines/agent-presence.machine';
import type { ConversationStatus } from '../machines/conversation.machine';
import type { TransitionRecord } from '../machines/machine-step';

/**
 * The KPI view of the transition log: one row per accepted event, as `step`/`initial` return it
 * (`from`, `to`, `event`, `at`, `actor`), plus the entity it belongs to and a small `data` bag the
 * host copies from the entity's context AFTER the transition. KPI functions never read snapshots,
 * so these rows alone must carry what they need.
 *
 * Rows the host passes for a window [from, to), per entity type:
 * - the last row of each entity at or before `from` (its state at `from`: agent state times,
 *   occupancy, compliance, queue length), and
 * - every row in [from − lookback, to), the lookback covering the longest wait or handle time
 *   (a day is plenty): a wait or a handle time that ends in the window is measured from the row
 *   that started it. Rows at or after `to` are ignored, so passing more is harmless.
 * Rows of one entity must be in log order (same-millisecond rows keep it); entities may interleave.
 *
 * What each figure reads:
 * | figure                                  | rows                                     | data                               |
 * | service level, abandonment, ASA, queue  | conversation rows in and out of LiningUp (calls: to the callAnswered row) | attentionLineId, channel |
 * | chat AHT                                | conversation rows in and out of Active   | agentId, attentionLineId, channel  |
 * | call AHT                                | presence rows in/out of inCall, outboundCall, afterCallWork | attentionLineId, channel on the row entering the call |
 * | agent state times, occupancy, compliance| all presence rows                        | —                                  |
 * | pause time by reason                    | presence rows in and out of paused       | pauseReasonId                      |
 * | Erlang C staffing                       | the above, per line; agents of the line chosen by the caller | —              |
 */
export interface LogRecord<TStatus extends string, TData> extends TransitionRecord<TStatus> {
  entityId: string;
  tenantId: string;
  data?: TData;
}

/**
 * Copied from the conversation's context after the transition, on every row (cheap, and any row
 * may be the first one a query sees).
 * - `channel`: by-channel grouping of every conversation KPI.
 * - `attentionLineId`: the line of a queue stay (read from the row entering LiningUp) and of a
 *   handled chat (the row entering Active); needed for every per-line figure.
 * - `agentId`: the agent who took the conversation (read from the row entering Active); needed for
 *   per-agent chat handle time.
 */
export interface ConversationLogData {
  channel?: string;
  attentionLineId?: string | null;
  agentId?: string | null;
}

/**
 * Copied from the agent's presence context after the transition.
 * - `pauseReasonId`: on every row entering `paused` (and on a paused → paused change of reason);
 *   without it pause time is booked under `UNKNOWN_PAUSE_REASON`.
 * - `attentionLineId`, `channel`: on rows entering `inCall` / `outboundCall`, the call's line and
 *   channel (the telephony host knows them; the presence context does not), for per-line call AHT.
 * - `conversationId`: on `agent.conversationAssigned` and `agent.conversationReleased` rows, the
 *   conversation given or let go; on a row entering `inCall`, the inbound call's conversation (the
 *   conversations report reads it to give a call's row its handle time). `conversationIds`: on a
 *   logout's row, the conversations it handed back to their lines (in the same transaction).
 */
export interface AgentLogData {
  pauseReasonId?: string | null;
  attentionLineId?: string | null;
  channel?: string;
  conversationId?: string;
  conversationIds?: string[];
}

/**
 * The channel of calls. A phone conversation's queue stay ends when the agent's phone answers
 * (`conversation.callAnswered`), not at the assignment that rang it; its handle time is read from
 * the agent's presence (talk + after-call work, `handledCalls`), never from its Active stay.
 */
export const CALL_CHANNEL = 'phone';

/** A conversation row; `entityId` is the conversation id. */
export type ConversationLogRecord = LogRecord<ConversationStatus, ConversationLogData>;

/** An agent-presence row; `entityId` is the agent id. */
export type AgentLogRecord = LogRecord<AgentStatus, AgentLogData>;

/** A half-open interval [from, to) in epoch milliseconds. */
export interface TimeWindow {
  from: number;
  to: number;
}
