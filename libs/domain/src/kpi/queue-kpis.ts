import type { ConversationEvent } from '../machines/conversation.machine';
import { CALL_CHANNEL, type ConversationLogRecord, type TimeWindow } from './kpi-log';
import { byEntity, ratio, requireNonNegative, requireWindow } from './kpi-internal';

/**
 * How a stay in a line's queue (LiningUp) ended:
 * - `answered`: an agent took it (LiningUp → Active).
 * - `abandoned`: the customer left (`conversation.abandoned`).
 * - `timedOut`: the queue timer closed it (`conversation.queueTimedOut`): offered, never answered,
 *   but not abandoned by the customer.
 * - `transferred`: moved to another line; it is offered to that line instead, not to this one.
 * - `closed`: a supervisor or the system closed it (spam, purge); not a customer contact.
 * - `waiting`: still queued at the end of what was read.
 */
export type QueueOutcome = 'answered' | 'abandoned' | 'timedOut' | 'transferred' | 'closed' | 'waiting';

/** One stay of a conversation in one line's queue. A transfer to another line starts a new one. */
export interface QueueEpisode {
  conversationId: string;
  tenantId: string;
  attentionLineId: string | null;
  channel: string | null;
  enteredAt: number;
  /** null while `waiting`. */
  leftAt: number | null;
  outcome: QueueOutcome;
  /** The agent who answered; null otherwise. */
  agentId: string | null;
}

type EventType = ConversationEvent['type'];
const TRANSFERRED: EventType = 'conversation.transferred';
const ABANDONED: EventType = 'conversation.abandoned';
const QUEUE_TIMED_OUT: EventType = 'conversation.queueTimedOut';
const CALL_ANSWERED: EventType = 'conversation.callAnswered';

function closedOutcome(event: string): QueueOutcome {
  if (event === ABANDONED) return 'abandoned';
  if (event === QUEUE_TIMED_OUT) return 'timedOut';
  return 'closed';
}

/**
 * Every queue stay of every conversation, reading rows for which `include(at)` holds.
 *
 * A call (CALL_CHANNEL) assigned to an agent only rings their phone: its stay goes on, ringing,
 * until the phone answers (`conversation.callAnswered`, answered then). A phone that does not take
 * it sends the call back to the same line (Active → LiningUp): still the same stay. The caller
 * hanging up while it rings ends the stay as abandoned (a staff member's close: closed).
 */
function episodes(records: readonly ConversationLogRecord[], include: (at: number) => boolean): QueueEpisode[] {
  const result: QueueEpisode[] = [];
  for (const [conversationId, timeline] of byEntity(records)) {
    let channel: string | null = null;
    let open: QueueEpisode | null = null;
    let ringing = false;
    for (const record of timeline) {
      if (!include(record.at)) break;
      channel = record.data?.channel ?? channel;
      // A message while queued is a LiningUp → LiningUp row that keeps the stay; a transfer re-enters.
      const requeued = record.event === TRANSFERRED;
      if (open && ringing) {
        if (record.event === CALL_ANSWERED) {
          open.leftAt = record.at;
          open.outcome = 'answered';
          open.agentId = record.data?.agentId ?? null;
          result.push(open);
          open = null;
          ringing = false;
          continue;
        }
        if (record.from === 'Active' && record.to === 'LiningUp') {
          ringing = false;
          if ((record.data?.attentionLineId ?? null) === open.attentionLineId) continue;
          open.leftAt = record.at;
          open.outcome = 'transferred';
          result.push(open);
          open = null;
        } else if (record.from === 'Active' && record.to !== 'Active') {
          open.leftAt = record.at;
          open.outcome = record.actor.kind === 'system' || record.actor.kind === 'customer' ? 'abandoned' : 'closed';
          result.push(open);
          open = null;
          ringing = false;
          continue;
        } else continue;
      }
      if (open && record.from === 'LiningUp' && record.to === 'Active' && channel === CALL_CHANNEL) {
        ringing = true;
        continue;
      }
      if (open && record.from === 'LiningUp' && (record.to !== 'LiningUp' || requeued)) {
        open.leftAt = record.at;
        if (record.to === 'Active') {
          open.outcome = 'answered';
          open.agentId = record.data?.agentId ?? null;
        } else open.outcome = record.to === 'Closed' ? closedOutcome(record.event) : 'transferred';
        result.push(open);
        open = null;
      }
      if (record.to === 'LiningUp' && (record.from !== 'LiningUp' || requeued)) {
        open = {
          conversationId,
          tenantId: record.tenantId,
          attentionLineId: record.data?.attentionLineId ?? null,
          channel,
          enteredAt: record.at,
          leftAt: null,
          outcome: 'waiting',
          agentId: null,
        };
      }
    }
    if (open) result.push(open);
  }
  return result;
}

/**
 * Queue stays that ENDED in the window (answered, abandoned, timed out, transferred or closed in
 * [from, to)), the way contact-centre reports count them: an outcome belongs to the interval in
 * which it happened, so every figure of a closed interval is final. The wait is measured in full,
 * even when the stay began before `from`.
 */
export function queueEpisodes(records: readonly ConversationLogRecord[], window: TimeWindow): QueueEpisode[] {
  requireWindow(window);
  return episodes(records, (at) => at < window.to).filter((episode) => episode.leftAt !== null && episode.leftAt >= window.from);
}

/** Queue stays that BEGAN in the window, whatever became of them: the arrivals Erlang C needs. */
export function queueArrivals(records: readonly ConversationLogRecord[], window: TimeWindow): QueueEpisode[] {
  requireWindow(window);
  return episodes(records, (at) => at < window.to).filter((episode) => episode.enteredAt >= window.from);
}

export interface ShortAbandonSetting {
  /** Abandons after a wait strictly shorter than this many seconds are "short". */
  underSec: number;
  /**
   * - `exclude`: a short abandon never reached the line in any useful sense (a misdial, a
   *   customer who changed their mind): it leaves offered, abandoned and the service level.
   * - `outOfThreshold`: it counts as a contact answered outside the threshold: it stays in
   *   offered, fails the service level, and is not counted as abandoned.
   */
  treatment: 'exclude' | 'outOfThreshold';
}

export interface QueueKpiSettings {
  /** Answered within this many seconds (inclusive) meets the service level, e.g. 20. */
  thresholdSec: number;
  /** Without it, every abandon is offered, abandoned and a service-level failure. */
  shortAbandon?: ShortAbandonSetting;
}

/**
 * Counts and rates of finished queue stays (`queueEpisodes`). Offered = answered + abandoned +
 * timed out (+ short abandons treated `outOfThreshold`); transfers out and supervisor closes are
 * not offered to the line they left. Rates are null, never NaN or 0, when nothing was offered or
 * answered: an idle line has no service level, which a dashboard shows as "—", not as 0 %.
 */
export interface QueueKpis {
  offered: number;
  answered: number;
  answeredWithinThreshold: number;
  abandoned: number;
  /** Abandons shorter than `shortAbandon.underSec`, whichever the treatment. */
  shortAbandons: number;
  timedOut: number;
  /** answeredWithinThreshold ÷ offered. */
  serviceLevel: number | null;
  /** abandoned ÷ offered. */
  abandonmentRate: number | null;
  /** Mean LiningUp → Active wait of answered stays, in ms. */
  averageSpeedOfAnswerMs: number | null;
  longestAnswerWaitMs: number | null;
}

export function queueKpis(finished: readonly QueueEpisode[], settings: QueueKpiSettings): QueueKpis {
  requireNonNegative(settings.thresholdSec, 'thresholdSec');
  if (settings.shortAbandon) requireNonNegative(settings.shortAbandon.underSec, 'shortAbandon.underSec');
  const thresholdMs = settings.thresholdSec * 1000;
  const shortMs = (settings.shortAbandon?.underSec ?? 0) * 1000;
  let answered = 0;
  let answeredWithinThreshold = 0;
  let abandoned = 0;
  let shortAbandons = 0;
  let timedOut = 0;
  let totalAnswerWait = 0;
  let longestAnswerWaitMs: number | null = null;
  for (const episode of finished) {
    if (episode.leftAt === null) continue;
    const wait = episode.leftAt - episode.enteredAt;
    if (episode.outcome === 'answered') {
      answered++;
      if (wait <= thresholdMs) answeredWithinThreshold++;
      totalAnswerWait += wait;
      longestAnswerWaitMs = Math.max(longestAnswerWaitMs ?? 0, wait);
    } else if (episode.outcome === 'abandoned') {
      if (wait < shortMs) shortAbandons++;
      else abandoned++;
    } else if (episode.outcome === 'timedOut') timedOut++;
  }
  const treatment = settings.shortAbandon?.treatment;
  const offered = answered + abandoned + timedOut + (treatment === 'exclude' ? 0 : shortAbandons);
  // With no setting, shortMs is 0 and no wait is < 0, so shortAbandons is 0 here.
  return {
    offered,
    answered,
    answeredWithinThreshold,
    abandoned,
    shortAbandons,
    timedOut,
    serviceLevel: ratio(answeredWithinThreshold, offered),
    abandonmentRate: ratio(abandoned, offered),
    averageSpeedOfAnswerMs: ratio(totalAnswerWait, answered),
    longestAnswerWaitMs,
  };
}

export interface WaitingContact {
  conversationId: string;
  tenantId: string;
  attentionLineId: string | null;
  channel: string | null;
  /** When it entered its current line's queue: a transfer to another line restarts the wait. */
  since: number;
  waitMs: number;
}

export interface QueueStatus {
  length: number;
  /** null when nobody waits. */
  longestWaitMs: number | null;
  waiting: WaitingContact[];
}

/**
 * Who is queued at the instant `at` (rows at `at` included, as for the state at a window start),
 * longest wait first. Group `waiting` by line with `groupBy` and `summarizeWaiting` for per-line
 * figures.
 */
export function queueStatusAt(records: readonly ConversationLogRecord[], at: number): QueueStatus {
  const waiting = episodes(records, (recordAt) => recordAt <= at)
    .filter((episode) => episode.outcome === 'waiting')
    .map(({ conversationId, tenantId, attentionLineId, channel, enteredAt }) => ({
      conversationId,
      tenantId,
      attentionLineId,
      channel,
      since: enteredAt,
      waitMs: at - enteredAt,
    }));
  return summarizeWaiting(waiting);
}

export function summarizeWaiting(waiting: readonly WaitingContact[]): QueueStatus {
  const sorted = [...waiting].sort((a, b) => b.waitMs - a.waitMs);
  return { length: sorted.length, longestWaitMs: sorted[0]?.waitMs ?? null, waiting: sorted };
}
