import { describe, it } from '@jest/globals';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { transition as xstateTransition } from 'xstate';
import { timeInStates } from '../kpi/time-in-states';
import { MAX_CHATS_PER_AGENT } from '../limits';
import {
  AGENT_STATUSES,
  AUTO_AWAY_REASON,
  agentPresenceMachine,
  canTakeConversation,
  describeAgentState,
  freeCapacity,
  type AgentPresenceEvent,
  type AgentPresenceSnapshot,
  type AgentStatus,
} from './agent-presence.machine';
import { initial, persist, restore, step, type Actor, type IntentOf, type TransitionRecord } from './machine-step';

/*
 * Random event sequences against the invariants routing and KPIs rely on, above all the
 * capacity invariant. Timer events are generated as "current" or "stale" (or, for wrap-up, sent
 * by hand) and resolved against the snapshot they hit.
 * Checks use `invariant` rather than jest's expect, which would dominate the run time here.
 */

function invariant(holds: boolean, what: string): void {
  if (!holds) throw new Error(`Invariant broken: ${what}`);
}

const T0 = Date.UTC(2025, 0, 15, 9, 0, 0);
const PAUSE_REASONS = ['lunch', 'training'];
const actors: Actor[] = [{ kind: 'agent', id: 'agent-a' }, { kind: 'supervisor', id: 'supervisor-1' }, { kind: 'system' }];

type Timer = 'current' | 'stale';
type Command =
  Exclude<AgentPresenceEvent, { type: 'agent.afterCallWorkEnded' | 'agent.disconnectGraceExpired' }> extends infer E
    ? E extends AgentPresenceEvent
      ? Omit<E, 'at' | 'actor'>
      : never
    : never;
type TimerCommand = { type: 'agent.afterCallWorkEnded'; timer: Timer | 'byHand' } | { type: 'agent.disconnectGraceExpired'; timer: Timer };

const conversationId = fc.constantFrom('c-1', 'c-2', 'c-3', 'c-4', 'c-5', 'c-6');
const reasonId = fc.constantFrom('lunch', 'training', 'nap', AUTO_AWAY_REASON);
const capacity = fc.integer({ min: 0, max: MAX_CHATS_PER_AGENT + 1 });
const disposition = fc.option(fc.constantFrom('sale', 'callback'), { nil: undefined });
const just = <TType extends string>(type: TType) => fc.constant({ type });

const loggedIn = fc.record({ type: fc.constant('agent.loggedIn' as const), capacity: fc.option(capacity, { nil: undefined }) });
const assigned = fc.record({ type: fc.constant('agent.conversationAssigned' as const), conversationId });
/** Routing's assignment to an agent on a call whose line allows chats during calls. */
const assignedDuringCall = fc.record({
  type: fc.constant('agent.conversationAssigned' as const),
  conversationId,
  duringCall: fc.boolean(),
});
const released = fc.record({ type: fc.constant('agent.conversationReleased' as const), conversationId, disposition });
const paused = fc.record({ type: fc.constant('agent.paused' as const), reasonId });
const forcePaused = fc.record({ type: fc.constant('agent.forcePaused' as const), reasonId });
const capacityChanged = fc.record({ type: fc.constant('agent.capacityChanged' as const), capacity });
const callEnded = fc.record({ type: fc.constant('agent.callEnded' as const), disposition });
const outboundCallEnded = fc.record({ type: fc.constant('agent.outboundCallEnded' as const), disposition });
const afterCallWorkEnded = fc.record({
  type: fc.constant('agent.afterCallWorkEnded' as const),
  timer: fc.constantFrom<Timer | 'byHand'>('current', 'stale', 'byHand'),
});
const graceExpired = fc.record({
  type: fc.constant('agent.disconnectGraceExpired' as const),
  timer: fc.constantFrom<Timer>('current', 'stale'),
});

const anyCommand: fc.Arbitrary<Command | TimerCommand> = fc.oneof(
  loggedIn,
  just('agent.loggedOut'),
  just('agent.forceLoggedOut'),
  just('agent.madeAvailable'),
  paused,
  forcePaused,
  just('agent.resumed'),
  just('agent.busySet'),
  just('agent.busyCleared'),
  assigned,
  released,
  just('agent.callStarted'),
  callEnded,
  afterCallWorkEnded,
  just('agent.outboundWaitStarted'),
  just('agent.outboundCallConnected'),
  outboundCallEnded,
  just('agent.disconnected'),
  just('agent.reconnected'),
  graceExpired,
  capacityChanged,
);

/** Events that plausibly come next in each status, so runs reach every state and fill capacity. */
const shared = [
  { weight: 2, arbitrary: released },
  { weight: 1, arbitrary: just('agent.busySet') },
  { weight: 1, arbitrary: just('agent.busyCleared') },
  { weight: 1, arbitrary: just('agent.disconnected') },
  { weight: 1, arbitrary: just('agent.reconnected') },
  { weight: 1, arbitrary: capacityChanged },
] as const;
const likely: Record<AgentStatus, fc.Arbitrary<Command | TimerCommand>> = {
  loggedOut: loggedIn,
  available: fc.oneof(
    { weight: 6, arbitrary: assigned },
    paused,
    just('agent.callStarted'),
    just('agent.outboundWaitStarted'),
    graceExpired,
    ...shared,
  ),
  busy: fc.oneof(
    { weight: 6, arbitrary: assigned },
    paused,
    forcePaused,
    just('agent.callStarted'),
    just('agent.loggedOut'),
    graceExpired,
    ...shared,
  ),
  paused: fc.oneof({ weight: 3, arbitrary: just('agent.resumed') }, paused, just('agent.forceLoggedOut'), ...shared),
  inCall: fc.oneof({ weight: 3, arbitrary: callEnded }, assignedDuringCall, ...shared),
  afterCallWork: fc.oneof({ weight: 3, arbitrary: afterCallWorkEnded }, paused, graceExpired, ...shared),
  outboundCall: fc.oneof({ weight: 3, arbitrary: outboundCallEnded }, ...shared),
  waitingOutboundCall: fc.oneof(
    { weight: 3, arbitrary: just('agent.outboundCallConnected') },
    just('agent.madeAvailable'),
    graceExpired,
    ...shared,
  ),
};

const scenario = fc.array(
  fc.record({
    likely: fc.record(likely),
    any: anyCommand,
    useAny: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    actor: fc.constantFrom(...actors),
    gapMs: fc.integer({ min: 0, max: 60_000 }),
  }),
  { minLength: 1, maxLength: 40 },
);

function toEvent(command: Command | TimerCommand, snapshot: AgentPresenceSnapshot, at: number, actor: Actor): AgentPresenceEvent {
  const { context } = snapshot;
  switch (command.type) {
    case 'agent.afterCallWorkEnded':
      if (command.timer === 'byHand') return { type: command.type, at, actor };
      return { type: command.type, armedAt: context.lastStateChangeAt - (command.timer === 'current' ? 0 : 1), at, actor };
    case 'agent.disconnectGraceExpired':
      return { type: command.type, armedAt: (context.disconnectedAt ?? 0) - (command.timer === 'current' ? 0 : 1), at, actor };
    default:
      // Events reach the host as JSON; fast-check's records have no prototype, which JSON normalises.
      return { ...JSON.parse(JSON.stringify(command)), at, actor } as AgentPresenceEvent;
  }
}

/** What the host would believe from the intents alone: which timers are armed. */
interface Ledger {
  afterCallWorkTimer: number | null;
  graceTimer: number | null;
}

function roundTrip(snapshot: AgentPresenceSnapshot): AgentPresenceSnapshot {
  return restore(agentPresenceMachine, JSON.parse(JSON.stringify(persist(agentPresenceMachine, snapshot))));
}

function checkIntents(
  ledger: Ledger,
  intents: IntentOf<typeof agentPresenceMachine>[],
  before: AgentPresenceSnapshot,
  after: AgentPresenceSnapshot,
) {
  for (const intent of intents) {
    switch (intent.type) {
      case 'requestAssignment':
        invariant(
          canTakeConversation(after) && intent.params.freeSlots === freeCapacity(after),
          'routing is asked only for slots it may fill',
        );
        break;
      case 'requeueConversations':
        invariant(
          intent.params.conversationIds.length > 0 &&
            isDeepStrictEqual(intent.params.conversationIds, before.context.activeConversationIds),
          'a leaving agent hands back exactly what they held',
        );
        break;
      case 'scheduleAfterCallWorkEnd':
        ledger.afterCallWorkTimer = intent.params.armedAt;
        break;
      case 'cancelAfterCallWorkEnd':
        ledger.afterCallWorkTimer = null;
        break;
      case 'scheduleDisconnectGrace':
        ledger.graceTimer = intent.params.armedAt;
        break;
      case 'cancelDisconnectGrace':
        ledger.graceTimer = null;
        break;
    }
  }
}

describe(`${agentPresenceMachine.id} (random event sequences)`, () => {
  it('keeps every invariant over thousands of random sequences', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_CHATS_PER_AGENT }), scenario, (initialCapacity, steps) => {
        const start = initial(agentPresenceMachine, {
          agentId: 'agent-a',
          tenantId: 'tenant-1',
          capacity: initialCapacity,
          pauseReasons: PAUSE_REASONS,
          at: T0,
          actor: actors[2],
        });
        let snapshot = start.snapshot;
        const records: TransitionRecord<AgentStatus>[] = [start.record];
        const ledger: Ledger = { afterCallWorkTimer: null, graceTimer: null };
        let at = T0;

        for (const { likely: likelyByStatus, any, useAny, actor, gapMs } of steps) {
          at += gapMs;
          const before = snapshot;
          const command = useAny ? any : likelyByStatus[describeAgentState(before)];
          const event = toEvent(command, before, at, actor);
          const result = step(agentPresenceMachine, before, event);

          // step() runs the machine on a reusable inert scope (machine-step.ts): it must answer
          // exactly what xstate's own pure transition() answers, state, context and actions.
          const [reference, referenceActions] = xstateTransition(agentPresenceMachine, before, event);
          invariant((reference === before) === !result.changed, 'step() refuses what transition() refuses');
          invariant(
            isDeepStrictEqual([reference.value, reference.context], [result.snapshot.value, result.snapshot.context]),
            'step() reaches the state transition() reaches',
          );
          invariant(
            isDeepStrictEqual(
              referenceActions.filter((action) => !action.type.startsWith('xstate.')).map(({ type, params }) => ({ type, params })),
              result.intents,
            ),
            'step() asks for the actions transition() asks for',
          );

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
          snapshot = result.snapshot;
          const record = result.record!;
          records.push(record);
          checkIntents(ledger, result.intents, before, snapshot);

          const status = describeAgentState(snapshot);
          const { context } = snapshot;
          const held = context.activeConversationIds;
          invariant(AGENT_STATUSES.includes(status), 'the status is a known one');

          // The capacity invariant: nothing is ever added beyond capacity, and never beyond 5.
          invariant(new Set(held).size === held.length, 'no conversation is held twice');
          invariant(context.capacity >= 1 && context.capacity <= MAX_CHATS_PER_AGENT, 'capacity stays within 1..5');
          invariant(held.length <= MAX_CHATS_PER_AGENT, 'never more than 5 conversations');
          if (held.length > before.context.activeConversationIds.length)
            invariant(held.length <= context.capacity, 'an assignment never exceeds capacity');
          if (freeCapacity(snapshot) > freeCapacity(before)) {
            invariant(
              result.intents.some((intent) => intent.type === 'requestAssignment'),
              'freed capacity is offered to routing at once',
            );
          }

          // Statuses agree with the context they summarise.
          if (status === 'available') invariant(held.length === 0 && !context.busyFlag, 'available means idle and assignable');
          if (status === 'busy') invariant(held.length > 0 || context.busyFlag, 'busy means holding work or flagged');
          invariant((context.pauseReasonId !== null) === (status === 'paused'), 'a pause reason exactly while paused');
          if (status === 'paused')
            invariant([...context.pauseReasons, AUTO_AWAY_REASON].includes(context.pauseReasonId!), 'pause reasons come from the list');
          if (status === 'loggedOut') {
            invariant(held.length === 0 && !context.busyFlag && context.disconnectedAt === null, 'logging out clears the shift');
          }
          if (record.from !== record.to) invariant(context.lastStateChangeAt === at, 'a status change is stamped with its time');

          // Each timer is armed exactly while the situation it guards lasts.
          invariant(
            ledger.afterCallWorkTimer === (status === 'afterCallWork' ? context.lastStateChangeAt : null),
            'wrap-up timer armed while in it',
          );
          invariant(ledger.graceTimer === context.disconnectedAt, 'grace timer armed exactly while disconnected');
        }

        // Time in each status, from the log alone, adds up to the time elapsed.
        const total = Object.values<number>(timeInStates(records, T0, at)).reduce((sum, ms) => sum + ms, 0);
        invariant(total === at - T0, 'time in states sums to the elapsed time');
      }),
      { numRuns: 3_000 },
    );
  });
});
