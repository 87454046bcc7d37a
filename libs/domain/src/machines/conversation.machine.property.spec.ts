import { describe, it } from '@jest/globals';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { timeInStates } from '../kpi/time-in-states';
import {
  CONVERSATION_STATUSES,
  conversationMachine,
  describeConversationState,
  type ConversationEvent,
  type ConversationSnapshot,
  type ConversationStatus,
} from './conversation.machine';
import { initial, persist, restore, step, type Actor, type IntentOf, type TransitionRecord } from './machine-step';

/*
 * Random event sequences, most of them nonsense, against the invariants the host relies on.
 * Timer events are generated as "current" or "stale" and resolved against the snapshot they hit,
 * so both the real timer and the late one that lost a race get exercised.
 * Checks use `invariant` rather than jest's expect, which would dominate the run time here.
 */

function invariant(holds: boolean, what: string): void {
  if (!holds) throw new Error(`Invariant broken: ${what}`);
}

const T0 = Date.UTC(2025, 0, 15, 9, 0, 0);
const actors: Actor[] = [
  { kind: 'customer', id: 'customer-1' },
  { kind: 'system' },
  { kind: 'supervisor', id: 'supervisor-1' },
  { kind: 'agent', id: 'agent-a' },
  { kind: 'agent', id: 'agent-b' },
];

type Timer = 'current' | 'stale';
type Command =
  | {
      type: 'conversation.menuCompleted';
      queryTypeId: string;
      submenuId: string;
      attentionLineId: string;
      pollId: string | null;
      priority?: number;
    }
  | { type: 'conversation.assigned'; agentId: string }
  | {
      type: 'conversation.transferred';
      to: { kind: 'line'; attentionLineId: string; pollId: string | null } | { kind: 'agent'; agentId: string };
    }
  | { type: 'conversation.abandoned' }
  | { type: 'conversation.queueTimedOut'; timer: Timer }
  | { type: 'conversation.inactivityTimedOut'; timer: Timer }
  | { type: 'conversation.closed'; reason: string; disposition?: string }
  | { type: 'conversation.surveyAnswered'; questionId: string; answer: string; last: boolean }
  | { type: 'conversation.surveyExpired'; timer: Timer }
  | { type: 'conversation.messageReceived' };

/** Mostly valid values, sometimes a blank one, so guards are exercised without starving the run. */
const mostly = <T>(valid: T[], invalid: T) =>
  fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...valid) }, { weight: 1, arbitrary: fc.constant(invalid) });
const line = mostly(['line-1', 'line-2'], '');
const agentId = mostly(['agent-a', 'agent-b'], '');
const pollId = fc.constantFrom<string | null>(null, 'poll-1');
const timer = fc.constantFrom<Timer>('current', 'stale');

const menuCompleted = fc.record({
  type: fc.constant('conversation.menuCompleted' as const),
  queryTypeId: mostly(['billing'], ''),
  submenuId: mostly(['invoices'], ''),
  attentionLineId: line,
  pollId,
  priority: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
});
const assigned = fc.record({ type: fc.constant('conversation.assigned' as const), agentId });
const transferred = fc.record({
  type: fc.constant('conversation.transferred' as const),
  to: fc.oneof(
    fc.record({ kind: fc.constant('line' as const), attentionLineId: line, pollId }),
    fc.record({ kind: fc.constant('agent' as const), agentId }),
  ),
});
const abandoned = fc.constant({ type: 'conversation.abandoned' as const });
const queueTimedOut = fc.record({ type: fc.constant('conversation.queueTimedOut' as const), timer });
const inactivityTimedOut = fc.record({ type: fc.constant('conversation.inactivityTimedOut' as const), timer });
const closed = fc.record({
  type: fc.constant('conversation.closed' as const),
  reason: fc.constantFrom('resolved', 'spam'),
  disposition: fc.option(fc.constantFrom('sale', 'no_sale'), { nil: undefined }),
});
const surveyAnswered = fc.record({
  type: fc.constant('conversation.surveyAnswered' as const),
  questionId: fc.constant('q-1'),
  answer: mostly(['5'], ''),
  last: fc.boolean(),
});
const surveyExpired = fc.record({ type: fc.constant('conversation.surveyExpired' as const), timer });
const messageReceived = fc.constant({ type: 'conversation.messageReceived' as const });

const anyCommand: fc.Arbitrary<Command> = fc.oneof(
  menuCompleted,
  assigned,
  transferred,
  abandoned,
  queueTimedOut,
  inactivityTimedOut,
  closed,
  surveyAnswered,
  surveyExpired,
  messageReceived,
);

/*
 * Uniformly random events rarely get past the menu. Each step therefore carries a likely event for
 * every status plus a fully random one; which is used is decided by the status reached, so runs go
 * deep yet any event can still arrive in any state.
 */
const likely: Record<Exclude<ConversationStatus, 'Closed'>, fc.Arbitrary<Command>> = {
  Transitory: fc.oneof({ weight: 6, arbitrary: menuCompleted }, { weight: 2, arbitrary: messageReceived }, abandoned, closed),
  LiningUp: fc.oneof(
    { weight: 6, arbitrary: assigned },
    { weight: 2, arbitrary: transferred },
    { weight: 2, arbitrary: messageReceived },
    abandoned,
    queueTimedOut,
    closed,
  ),
  Active: fc.oneof(
    { weight: 3, arbitrary: messageReceived },
    { weight: 3, arbitrary: transferred },
    { weight: 2, arbitrary: closed },
    inactivityTimedOut,
  ),
  Inquest: fc.oneof({ weight: 4, arbitrary: surveyAnswered }, surveyExpired),
};

const scenario = fc.array(
  fc.record({
    likely: fc.record(likely),
    any: anyCommand,
    useAny: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    actor: fc.constantFrom(...actors),
    gapMs: fc.integer({ min: 0, max: 5_000 }),
  }),
  { minLength: 1, maxLength: 40 },
);

function toEvent(command: Command, snapshot: ConversationSnapshot, at: number, actor: Actor): ConversationEvent {
  const armedAt = (armed: number | null, which: Timer) => (armed ?? 0) - (which === 'current' ? 0 : 1);
  const { context } = snapshot;
  switch (command.type) {
    case 'conversation.queueTimedOut':
      return { type: command.type, armedAt: armedAt(context.queuedAt, command.timer), at, actor };
    case 'conversation.inactivityTimedOut':
      // The live timer is armed at inactivityArmedAt; messages since only move lastActivityAt.
      return { type: command.type, armedAt: armedAt(context.inactivityArmedAt ?? context.lastActivityAt, command.timer), at, actor };
    case 'conversation.surveyExpired':
      return { type: command.type, armedAt: armedAt(context.closedAt, command.timer), at, actor };
    default:
      // Events reach the host as JSON; fast-check's records have no prototype, which JSON normalises.
      return { ...JSON.parse(JSON.stringify(command)), at, actor };
  }
}

/** What the host would believe from the intents alone: who holds it, which queue, which timers. */
interface Ledger {
  agentId: string | null;
  queuedOn: string | null;
  queueTimer: number | null;
  inactivityTimer: number | null;
  surveyTimer: number | null;
}

function applyIntents(ledger: Ledger, intents: IntentOf<typeof conversationMachine>[]): void {
  for (const intent of intents) {
    switch (intent.type) {
      case 'notifyAgent':
        invariant(ledger.agentId === null, 'an agent is notified only when nobody holds the conversation');
        ledger.agentId = intent.params.agentId;
        break;
      case 'releaseAgent':
        invariant(ledger.agentId === intent.params.agentId, 'the agent released is the one who holds it');
        ledger.agentId = null;
        break;
      case 'enqueueRouting':
        invariant(ledger.queuedOn === null, 'a conversation is queued on one line at a time');
        ledger.queuedOn = intent.params.attentionLineId;
        break;
      case 'dequeueRouting':
        invariant(ledger.queuedOn === intent.params.attentionLineId, 'a conversation leaves the queue it is on');
        ledger.queuedOn = null;
        break;
      case 'scheduleQueueTimeout':
        ledger.queueTimer = intent.params.armedAt;
        break;
      case 'cancelQueueTimeout':
        ledger.queueTimer = null;
        break;
      case 'scheduleInactivityTimeout':
        ledger.inactivityTimer = intent.params.armedAt;
        break;
      case 'cancelInactivityTimeout':
        ledger.inactivityTimer = null;
        break;
      case 'scheduleSurveyExpiry':
        ledger.surveyTimer = intent.params.armedAt;
        break;
      case 'cancelSurveyExpiry':
        ledger.surveyTimer = null;
        break;
      case 'startInquest':
      case 'notifyClosed':
        break;
    }
  }
}

function roundTrip(snapshot: ConversationSnapshot): ConversationSnapshot {
  return restore(conversationMachine, JSON.parse(JSON.stringify(persist(conversationMachine, snapshot))));
}

describe(`${conversationMachine.id} (random event sequences)`, () => {
  it('keeps every invariant over thousands of random sequences', () => {
    fc.assert(
      fc.property(scenario, (steps) => {
        const start = initial(conversationMachine, { id: 'c-1', tenantId: 't-1', channel: 'webchat', at: T0, actor: actors[0] });
        let snapshot = start.snapshot;
        const records: TransitionRecord<ConversationStatus>[] = [start.record];
        const ledger: Ledger = { agentId: null, queuedOn: null, queueTimer: null, inactivityTimer: null, surveyTimer: null };
        let closedFromService = false;
        let at = T0;

        for (const { likely: likelyByStatus, any, useAny, actor, gapMs } of steps) {
          at += gapMs;
          const before = snapshot;
          const beforeStatus = describeConversationState(before);
          const command = useAny || beforeStatus === 'Closed' ? any : likelyByStatus[beforeStatus];
          const event = toEvent(command, before, at, actor);
          const result = step(conversationMachine, before, event);

          // The web enables buttons with `can`; it must agree with what the host will accept.
          invariant(before.can(event) === result.changed, 'can() agrees with step()');
          // A snapshot read back from JSON is the same state: same value and context, same answers.
          const restored = roundTrip(before);
          invariant(
            isDeepStrictEqual([restored.value, restored.context], [before.value, before.context]),
            'JSON round trip keeps the state',
          );
          invariant(restored.can(event) === result.changed, 'a restored snapshot accepts the same events');

          if (!result.changed) {
            invariant(
              result.snapshot === before && result.intents.length === 0 && result.record === null,
              'a refused event changes nothing',
            );
            continue;
          }
          invariant(beforeStatus !== 'Closed', 'Closed is final');
          snapshot = result.snapshot;
          const record = result.record!;
          records.push(record);
          applyIntents(ledger, result.intents);

          const status = describeConversationState(snapshot);
          const { context } = snapshot;
          invariant(CONVERSATION_STATUSES.includes(status), 'the status is a known one');
          if (status === 'Closed' && record.from !== 'Closed') closedFromService = record.from === 'Active' || record.from === 'Inquest';

          // One owner at most, set exactly while served (and kept as "served by" afterwards).
          const served = status === 'Active' || status === 'Inquest' || (status === 'Closed' && closedFromService);
          invariant((context.agentId !== null) === served, 'agentId is set exactly when served');
          invariant(ledger.agentId === (status === 'Active' ? context.agentId : null), 'the agent holds it exactly while Active');
          invariant(
            ledger.queuedOn === (status === 'LiningUp' ? context.attentionLineId : null),
            'queued on its line exactly while LiningUp',
          );
          // Each timer is armed exactly while its state lasts, for the stay it guards.
          invariant(ledger.queueTimer === (status === 'LiningUp' ? context.queuedAt : null), 'queue timer armed while LiningUp');
          invariant(
            ledger.inactivityTimer === (status === 'Active' ? context.inactivityArmedAt : null),
            'inactivity timer armed while Active',
          );
          // Messages never move the timer forward past the activity it counts from.
          if (status === 'Active')
            invariant((context.inactivityArmedAt ?? 0) <= context.lastActivityAt, 'inactivity timer armed at or before the last activity');
          invariant(ledger.surveyTimer === (status === 'Inquest' ? context.closedAt : null), 'survey timer armed while Inquest');
          if (status === 'Inquest' || status === 'Closed') {
            invariant(context.closeReason !== null && context.closedBy !== null, 'every close keeps its reason and who closed');
          }
          invariant((status === 'Closed') === (snapshot.status === 'done'), 'only Closed is final');
        }

        // Time in each status, from the log alone, adds up to the time elapsed, in any window.
        const middle = T0 + Math.floor((at - T0) / 2);
        for (const from of [T0, middle]) {
          const total = Object.values<number>(timeInStates(records, from, at)).reduce((sum, ms) => sum + ms, 0);
          invariant(total === at - from, 'time in states sums to the elapsed time');
        }
      }),
      { numRuns: 3_000 },
    );
  });
});
