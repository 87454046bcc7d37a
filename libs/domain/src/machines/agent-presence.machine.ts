import { and, enqueueActions, not, setup, stateIn, type SnapshotFrom } from 'xstate';
import { DomainError } from '../domain-error';
import { isValidCapacity } from '../limits';
import type { AgentCandidate } from '../routing/select-agent';
import { intent } from './intent';
import { leafState, type Actor, type Stamped } from './machine-step';

/**
 * Agent presence (spec §4). The eight statuses are the leaf states:
 *
 *   loggedOut
 *   loggedIn
 *     offCall                    logout and pauses are possible from here
 *       ready                    may receive conversations
 *         available              no conversation and no busy flag
 *         busy                   holding conversations, or flagged "do not assign"
 *       paused                   with a reason from the configured list (or auto-away)
 *       afterCallWork
 *       waitingOutboundCall
 *     inCall, outboundCall       telephony owns these: only the call's end leaves them
 *
 * Conversations are held in any logged-in state (an agent may pause while finishing chats), but
 * are only received in `ready` or `inCall` (blended agents: whether a line's chats may come during
 * a call is its rule, applied by routing), below capacity, without the busy flag and while connected.
 */
export const AGENT_STATUSES = [
  'loggedOut',
  'available',
  'busy',
  'paused',
  'inCall',
  'afterCallWork',
  'outboundCall',
  'waitingOutboundCall',
] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** Reason set by the system when a disconnected agent's grace period runs out; not selectable by hand. */
export const AUTO_AWAY_REASON = 'auto_away';

export interface AgentPresenceContext {
  agentId: string;
  tenantId: string;
  /** The campaign's allowed chats per agent, 1..5. */
  capacity: number;
  /** Pause reason ids the tenant offers; `agent.paused` accepts only these. */
  pauseReasons: string[];
  activeConversationIds: string[];
  /** Manual "do not assign": the agent keeps working but receives nothing new. */
  busyFlag: boolean;
  pauseReasonId: string | null;
  pausedBy: Actor | null;
  disconnectedAt: number | null;
  lastStateChangeAt: number;
  /** When the agent last received a conversation or became ready; longest-idle routing picks the oldest. */
  idleSince: number;
  /** Disposition of the last call or conversation the agent finished (UpdDISPO). */
  lastDisposition: string | null;
}

export interface AgentPresenceInput extends Stamped {
  agentId: string;
  tenantId: string;
  capacity: number;
  pauseReasons: string[];
}

export type AgentPresenceEvent = Stamped &
  (
    | { type: 'agent.loggedIn'; capacity?: number; pauseReasons?: string[] }
    | { type: 'agent.loggedOut' }
    | { type: 'agent.forceLoggedOut' }
    | { type: 'agent.madeAvailable' }
    | { type: 'agent.paused'; reasonId: string }
    | { type: 'agent.forcePaused'; reasonId: string }
    | { type: 'agent.resumed' }
    | { type: 'agent.busySet' }
    | { type: 'agent.busyCleared' }
    /**
     * `duringCall`: routing gives a chat to an agent on a call because the line allows chats during
     * calls (it checked the rule); nothing else assigns during a call (a transfer to an agent on a call is refused).
     */
    | { type: 'agent.conversationAssigned'; conversationId: string; duringCall?: boolean }
    | { type: 'agent.conversationReleased'; conversationId: string; disposition?: string }
    /**
     * The call's line and channel, when telephony knows them, and the conversation of an inbound call: copied onto the log
     * row entering inCall (per-line call AHT, the call's handle time on its conversation's report row).
     */
    | { type: 'agent.callStarted'; attentionLineId?: string | null; channel?: string; conversationId?: string }
    | { type: 'agent.callEnded'; disposition?: string }
    | { type: 'agent.afterCallWorkEnded'; armedAt?: number }
    | { type: 'agent.outboundWaitStarted' }
    | { type: 'agent.outboundCallConnected' }
    | { type: 'agent.outboundCallEnded'; disposition?: string }
    | { type: 'agent.disconnected' }
    | { type: 'agent.reconnected' }
    | { type: 'agent.disconnectGraceExpired'; armedAt: number }
    | { type: 'agent.capacityChanged'; capacity: number }
  );

type AgentEventOf<TType extends AgentPresenceEvent['type']> = Extract<AgentPresenceEvent, { type: TType }>;

const READY = '#agent-presence.loggedIn.offCall.ready';
const PAUSED = '#agent-presence.loggedIn.offCall.paused';

/** Room for one more conversation, judged on context alone; the state must also be `ready`. */
function hasRoom(context: AgentPresenceContext): boolean {
  return !context.busyFlag && context.disconnectedAt === null && context.activeConversationIds.length < context.capacity;
}

function createContext(input: AgentPresenceInput): AgentPresenceContext {
  if (!isValidCapacity(input.capacity)) {
    throw new DomainError('agent.capacityOutOfRange', `Allowed chats per agent must be a whole number from 1 to 5, got ${input.capacity}`);
  }
  return {
    agentId: input.agentId,
    tenantId: input.tenantId,
    capacity: input.capacity,
    pauseReasons: [...input.pauseReasons],
    activeConversationIds: [],
    busyFlag: false,
    pauseReasonId: null,
    pausedBy: null,
    disconnectedAt: null,
    lastStateChangeAt: input.at,
    idleSince: input.at,
    lastDisposition: null,
  };
}

const presenceSetup = setup({
  types: {} as { context: AgentPresenceContext; events: AgentPresenceEvent; input: AgentPresenceInput },
  actions: {
    /** Routing should try to give this agent work now (freed capacity pulls from the queue at once). */
    requestAssignment: intent<{ agentId: string; tenantId: string; freeSlots: number }>(),
    /** The agent left while holding conversations: put them back on their lines. */
    requeueConversations: intent<{ agentId: string; conversationIds: string[] }>(),
    scheduleAfterCallWorkEnd: intent<{ agentId: string; armedAt: number }>(),
    cancelAfterCallWorkEnd: intent<{ agentId: string }>(),
    scheduleDisconnectGrace: intent<{ agentId: string; armedAt: number }>(),
    cancelDisconnectGrace: intent<{ agentId: string }>(),
  },
  guards: {
    hasRoom: ({ context }) => hasRoom(context),
    isOccupied: ({ context }) => context.busyFlag || context.activeConversationIds.length > 0,
    canAcceptConversation: ({ context, event }) =>
      event.type === 'agent.conversationAssigned' &&
      event.conversationId.length > 0 &&
      !context.activeConversationIds.includes(event.conversationId) &&
      hasRoom(context),
    assignedDuringCall: ({ event }) => event.type === 'agent.conversationAssigned' && event.duringCall === true,
    holdsConversation: ({ context, event }) =>
      event.type === 'agent.conversationReleased' && context.activeConversationIds.includes(event.conversationId),
    loginSettingsValid: ({ event }) => event.type === 'agent.loggedIn' && (event.capacity === undefined || isValidCapacity(event.capacity)),
    capacityChangeValid: ({ context, event }) =>
      event.type === 'agent.capacityChanged' && isValidCapacity(event.capacity) && event.capacity !== context.capacity,
    reasonIsOffered: ({ context, event }) =>
      (event.type === 'agent.paused' || event.type === 'agent.forcePaused') &&
      context.pauseReasons.includes(event.reasonId) &&
      event.reasonId !== context.pauseReasonId,
    actorIsSupervisor: ({ event }) => event.actor.kind === 'supervisor',
    actorIsSupervisorOrSystem: ({ event }) => event.actor.kind === 'supervisor' || event.actor.kind === 'system',
    busyFlagSet: ({ context }) => context.busyFlag,
    isDisconnected: ({ context }) => context.disconnectedAt !== null,
    graceTimerIsCurrent: ({ context, event }) =>
      event.type === 'agent.disconnectGraceExpired' && context.disconnectedAt !== null && event.armedAt === context.disconnectedAt,
    // The agent may end wrap-up by hand (no armedAt); a timer must match this stay in afterCallWork.
    afterCallWorkTimerIsCurrent: ({ context, event }) =>
      event.type === 'agent.afterCallWorkEnded' && (event.armedAt === undefined || event.armedAt === context.lastStateChangeAt),
  },
});

// At creation the event is xstate.init, which has no `at`: the context factory has stamped the time.
const stampStateChange = presenceSetup.assign({ lastStateChangeAt: ({ context, event }) => event.at ?? context.lastStateChangeAt });

function freeSlotsParams(context: AgentPresenceContext) {
  return { agentId: context.agentId, tenantId: context.tenantId, freeSlots: context.capacity - context.activeConversationIds.length };
}

/** After an event that may free capacity without changing state (a release, the busy flag cleared…). */
const offerCapacity = presenceSetup.createAction(
  enqueueActions(({ context, check, enqueue }) => {
    if (check(and([stateIn(READY), 'hasRoom']))) enqueue({ type: 'requestAssignment', params: freeSlotsParams(context) });
  }),
);

/** On entering `ready`, where `stateIn` would still see the state being left: the context decides alone. */
const offerCapacityOnEntry = presenceSetup.createAction(
  enqueueActions(({ context, check, enqueue }) => {
    if (check('hasRoom')) enqueue({ type: 'requestAssignment', params: freeSlotsParams(context) });
  }),
);

const pause = (reasonOf: (event: AgentPresenceEvent) => string) =>
  presenceSetup.assign(({ event }) => ({ pauseReasonId: reasonOf(event), pausedBy: event.actor }));

const recordDisposition = presenceSetup.assign({
  lastDisposition: ({ context, event }) =>
    'disposition' in event ? (event.disposition ?? context.lastDisposition) : context.lastDisposition,
});

export const agentPresenceMachine = presenceSetup.createMachine({
  id: 'agent-presence',
  context: ({ input }) => createContext(input),
  initial: 'loggedOut',
  on: {
    'agent.capacityChanged': {
      guard: 'capacityChangeValid',
      actions: [
        presenceSetup.assign({ capacity: ({ event }) => (event as AgentEventOf<'agent.capacityChanged'>).capacity }),
        offerCapacity,
      ],
    },
  },
  states: {
    loggedOut: {
      entry: stampStateChange,
      on: {
        'agent.loggedIn': {
          guard: 'loginSettingsValid',
          target: 'loggedIn',
          actions: presenceSetup.assign(({ context, event }) => {
            const { capacity, pauseReasons } = event as AgentEventOf<'agent.loggedIn'>;
            return { capacity: capacity ?? context.capacity, pauseReasons: pauseReasons ? [...pauseReasons] : context.pauseReasons };
          }),
        },
      },
    },
    loggedIn: {
      initial: 'offCall',
      exit: [
        enqueueActions(({ context, enqueue }) => {
          if (context.activeConversationIds.length > 0) {
            enqueue({ type: 'requeueConversations', params: { agentId: context.agentId, conversationIds: context.activeConversationIds } });
          }
          if (context.disconnectedAt !== null) enqueue({ type: 'cancelDisconnectGrace', params: { agentId: context.agentId } });
        }),
        presenceSetup.assign({
          activeConversationIds: [],
          busyFlag: false,
          pauseReasonId: null,
          pausedBy: null,
          disconnectedAt: null,
        }),
      ],
      on: {
        'agent.conversationReleased': {
          guard: 'holdsConversation',
          actions: [
            presenceSetup.assign(({ context, event }) => {
              const { conversationId, disposition } = event as AgentEventOf<'agent.conversationReleased'>;
              return {
                activeConversationIds: context.activeConversationIds.filter((id) => id !== conversationId),
                lastDisposition: disposition ?? context.lastDisposition,
              };
            }),
            offerCapacity,
          ],
        },
        'agent.busySet': { guard: not('busyFlagSet'), actions: presenceSetup.assign({ busyFlag: true }) },
        'agent.busyCleared': { guard: 'busyFlagSet', actions: [presenceSetup.assign({ busyFlag: false }), offerCapacity] },
        'agent.disconnected': {
          guard: not('isDisconnected'),
          actions: [
            presenceSetup.assign({ disconnectedAt: ({ event }) => event.at }),
            { type: 'scheduleDisconnectGrace', params: ({ context, event }) => ({ agentId: context.agentId, armedAt: event.at }) },
          ],
        },
        'agent.reconnected': {
          guard: 'isDisconnected',
          actions: [
            presenceSetup.assign({ disconnectedAt: null }),
            { type: 'cancelDisconnectGrace', params: ({ context }) => ({ agentId: context.agentId }) },
            offerCapacity,
          ],
        },
      },
      states: {
        offCall: {
          initial: 'ready',
          on: {
            'agent.loggedOut': { target: '#agent-presence.loggedOut' },
            'agent.forceLoggedOut': { guard: 'actorIsSupervisorOrSystem', target: '#agent-presence.loggedOut' },
            'agent.paused': {
              guard: 'reasonIsOffered',
              target: '.paused',
              actions: pause((event) => (event as AgentEventOf<'agent.paused'>).reasonId),
            },
            'agent.forcePaused': {
              guard: and(['actorIsSupervisor', 'reasonIsOffered']),
              target: '.paused',
              actions: pause((event) => (event as AgentEventOf<'agent.forcePaused'>).reasonId),
            },
            // An agent already paused keeps their own reason.
            'agent.disconnectGraceExpired': {
              guard: and(['graceTimerIsCurrent', not(stateIn(PAUSED))]),
              target: '.paused',
              actions: pause(() => AUTO_AWAY_REASON),
            },
          },
          states: {
            ready: {
              initial: 'available',
              entry: [presenceSetup.assign({ idleSince: ({ event }) => event.at }), offerCapacityOnEntry],
              on: {
                'agent.conversationAssigned': {
                  guard: 'canAcceptConversation',
                  actions: presenceSetup.assign(({ context, event }) => ({
                    activeConversationIds: [
                      ...context.activeConversationIds,
                      (event as AgentEventOf<'agent.conversationAssigned'>).conversationId,
                    ],
                    idleSince: event.at,
                  })),
                },
                'agent.callStarted': { target: '#agent-presence.loggedIn.inCall' },
                'agent.outboundWaitStarted': { target: 'waitingOutboundCall' },
              },
              states: {
                available: { entry: stampStateChange, always: { guard: 'isOccupied', target: 'busy' } },
                busy: { entry: stampStateChange, always: { guard: not('isOccupied'), target: 'available' } },
              },
            },
            paused: {
              entry: stampStateChange,
              exit: presenceSetup.assign({ pauseReasonId: null, pausedBy: null }),
              on: { 'agent.resumed': { target: 'ready' } },
            },
            afterCallWork: {
              entry: [
                stampStateChange,
                {
                  type: 'scheduleAfterCallWorkEnd',
                  params: ({ context }) => ({ agentId: context.agentId, armedAt: context.lastStateChangeAt }),
                },
              ],
              exit: { type: 'cancelAfterCallWorkEnd', params: ({ context }) => ({ agentId: context.agentId }) },
              on: { 'agent.afterCallWorkEnded': { guard: 'afterCallWorkTimerIsCurrent', target: 'ready' } },
            },
            waitingOutboundCall: {
              entry: stampStateChange,
              on: {
                'agent.madeAvailable': { target: 'ready' },
                'agent.outboundCallConnected': { target: '#agent-presence.loggedIn.outboundCall' },
              },
            },
          },
        },
        inCall: {
          entry: stampStateChange,
          on: {
            'agent.callEnded': { target: 'offCall.afterCallWork', actions: recordDisposition },
            // Blended agents: the line decides whether a chat may come during a call (routing checks
            // its rule and says so); the machine keeps capacity, as in ready. No idleSince change: not idle.
            'agent.conversationAssigned': {
              guard: and(['canAcceptConversation', 'assignedDuringCall']),
              actions: presenceSetup.assign(({ context, event }) => ({
                activeConversationIds: [
                  ...context.activeConversationIds,
                  (event as AgentEventOf<'agent.conversationAssigned'>).conversationId,
                ],
              })),
            },
          },
        },
        outboundCall: {
          entry: stampStateChange,
          on: { 'agent.outboundCallEnded': { target: 'offCall.afterCallWork', actions: recordDisposition } },
        },
      },
    },
  },
});

export type AgentPresenceSnapshot = SnapshotFrom<typeof agentPresenceMachine>;

export function describeAgentState(snapshot: AgentPresenceSnapshot): AgentStatus {
  return leafState(snapshot.value) as AgentStatus;
}

/** Whether routing may give this agent one more conversation now. */
export function canTakeConversation(snapshot: AgentPresenceSnapshot): boolean {
  return snapshot.matches({ loggedIn: { offCall: 'ready' } }) && hasRoom(snapshot.context);
}

/** Conversations routing may still give this agent now; 0 when not eligible. */
export function freeCapacity(snapshot: AgentPresenceSnapshot): number {
  return canTakeConversation(snapshot) ? snapshot.context.capacity - snapshot.context.activeConversationIds.length : 0;
}

/**
 * The routing view of an agent on an inbound call who may still be given a chat when the line
 * allows chats during calls (routing applies the line's limit), or null.
 */
export function inCallCandidate(snapshot: AgentPresenceSnapshot): AgentCandidate | null {
  if (!snapshot.matches({ loggedIn: 'inCall' }) || !hasRoom(snapshot.context)) return null;
  const { agentId, activeConversationIds, capacity, idleSince } = snapshot.context;
  return { agentId, activeConversations: activeConversationIds.length, capacity, idleSince };
}

/** The routing view of an agent, or null when the agent cannot take a conversation now. */
export function routingCandidate(snapshot: AgentPresenceSnapshot): AgentCandidate | null {
  if (!canTakeConversation(snapshot)) return null;
  const { agentId, activeConversationIds, capacity, idleSince } = snapshot.context;
  return { agentId, activeConversations: activeConversationIds.length, capacity, idleSince };
}
