import { setup, type SnapshotFrom } from 'xstate';
import { DomainError } from '../domain-error';
import { intent } from '../machines/intent';
import { leafState, type Stamped } from '../machines/machine-step';
import { isE164 } from './phone';

/**
 * One dial attempt of a campaign contact:
 *
 *   queued → dialing → ringing → answeredByHuman → connected → wrapUp → done
 *                      │           └→ abandoned (no agent within the threshold, or the person hung up)
 *                      └→ answeringMachine | busy | noAnswer | failed          (queued → cancelled)
 *
 * Every end is a final state named after its outcome, so the transition log alone gives the
 * campaign's answer and abandonment rates. A retry is a new call with `attempt + 1`, created by the
 * host from `reportOutcome` and `nextAttempt`: each attempt keeps its own clean history.
 *
 * Timers are the host's. The abandon timer is armed when a human answers (`armedAt` = answer
 * time) and its event must echo that time; the wrap-up timer likewise echoes the hang-up time.
 */
export const OUTBOUND_CALL_STATUSES = [
  'queued',
  'dialing',
  'ringing',
  'answeredByHuman',
  'connected',
  'wrapUp',
  'done',
  'abandoned',
  'answeringMachine',
  'busy',
  'noAnswer',
  'failed',
  'cancelled',
] as const;
export type OutboundCallStatus = (typeof OUTBOUND_CALL_STATUSES)[number];

/** How an attempt ended: its final state. `done` means the contact talked to an agent. */
export const CALL_OUTCOMES = ['done', 'abandoned', 'answeringMachine', 'busy', 'noAnswer', 'failed', 'cancelled'] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/** Regulators commonly require a live agent within 2 s of the contact's answer (e.g. Ofcom). */
export const DEFAULT_ABANDON_THRESHOLD_MS = 2000;

export interface OutboundCallContext {
  id: string;
  tenantId: string;
  campaignId: string;
  contactId: string;
  /** E.164. */
  phone: string;
  /** 1 for the first attempt at this contact in the campaign. */
  attempt: number;
  abandonThresholdMs: number;
  agentId: string | null;
  outcome: CallOutcome | null;
  /** Set by the agent (UpdDISPO), during the call or in wrap-up. */
  disposition: string | null;
  /** Carrier cause for `failed`, or why a queued call was cancelled (DNC, outside the window…). */
  endReason: string | null;
  createdAt: number;
  dialedAt: number | null;
  ringingAt: number | null;
  answeredAt: number | null;
  connectedAt: number | null;
  hungUpAt: number | null;
  finishedAt: number | null;
}

export interface OutboundCallInput extends Stamped {
  id: string;
  tenantId: string;
  campaignId: string;
  contactId: string;
  phone: string;
  attempt: number;
  abandonThresholdMs?: number;
}

export type OutboundCallEvent = Stamped &
  (
    | { type: 'call.dialed' }
    | { type: 'call.ringing' }
    | { type: 'call.answered'; by: 'human' | 'machine' }
    | { type: 'call.busy' }
    | { type: 'call.notAnswered' }
    | { type: 'call.failed'; reason: string }
    | { type: 'call.cancelled'; reason: string }
    | { type: 'call.agentConnected'; agentId: string }
    | { type: 'call.abandonTimerExpired'; armedAt: number }
    | { type: 'call.hungUp' }
    | { type: 'call.dispositioned'; disposition: string }
    | { type: 'call.wrapUpExpired'; armedAt: number }
  );

type CallEventOf<TType extends OutboundCallEvent['type']> = Extract<OutboundCallEvent, { type: TType }>;

function hasText(...values: (string | null | undefined)[]): boolean {
  return values.every((value) => typeof value === 'string' && value.trim().length > 0);
}

function createContext(input: OutboundCallInput): OutboundCallContext {
  if (!hasText(input.id, input.tenantId, input.campaignId, input.contactId)) {
    throw new DomainError('machine.invalidInput', 'An outbound call needs an id, a tenant, a campaign and a contact');
  }
  if (!isE164(input.phone)) throw new DomainError('machine.invalidInput', `An outbound call needs an E.164 number, got '${input.phone}'`);
  if (!Number.isInteger(input.attempt) || input.attempt < 1) {
    throw new DomainError('machine.invalidInput', `attempt must be a whole number ≥ 1, got ${input.attempt}`);
  }
  const abandonThresholdMs = input.abandonThresholdMs ?? DEFAULT_ABANDON_THRESHOLD_MS;
  if (!Number.isInteger(abandonThresholdMs) || abandonThresholdMs <= 0) {
    throw new DomainError('machine.invalidInput', `abandonThresholdMs must be a whole number > 0, got ${abandonThresholdMs}`);
  }
  return {
    id: input.id,
    tenantId: input.tenantId,
    campaignId: input.campaignId,
    contactId: input.contactId,
    phone: input.phone,
    attempt: input.attempt,
    abandonThresholdMs,
    agentId: null,
    outcome: null,
    disposition: null,
    endReason: null,
    createdAt: input.at,
    dialedAt: null,
    ringingAt: null,
    answeredAt: null,
    connectedAt: null,
    hungUpAt: null,
    finishedAt: null,
  };
}

const callSetup = setup({
  types: {} as { context: OutboundCallContext; events: OutboundCallEvent; input: OutboundCallInput },
  actions: {
    placeCall: intent<{ callId: string; tenantId: string; campaignId: string; phone: string; attempt: number }>(),
    /** Ends the carrier leg: after machine detection, or with the recorded message an abandoned contact must hear. */
    hangUp: intent<{ callId: string; reason: 'answeringMachine' | 'abandoned' }>(),
    requestAgent: intent<{ callId: string; tenantId: string; campaignId: string; answeredAt: number }>(),
    scheduleAbandonTimer: intent<{ callId: string; armedAt: number; delayMs: number }>(),
    cancelAbandonTimer: intent<{ callId: string }>(),
    bridgeAgent: intent<{ callId: string; agentId: string }>(),
    releaseAgent: intent<{ callId: string; agentId: string }>(),
    scheduleWrapUpEnd: intent<{ callId: string; agentId: string; armedAt: number }>(),
    cancelWrapUpEnd: intent<{ callId: string }>(),
    /** The attempt is over: the host records it and asks `nextAttempt` whether to retry. */
    reportOutcome: intent<{
      callId: string;
      tenantId: string;
      campaignId: string;
      contactId: string;
      attempt: number;
      outcome: CallOutcome;
      disposition: string | null;
      at: number;
    }>(),
  },
  guards: {
    carriesReason: ({ event }) => (event.type === 'call.failed' || event.type === 'call.cancelled') && hasText(event.reason),
    answeredByHuman: ({ event }) => event.type === 'call.answered' && event.by === 'human',
    answeredByMachine: ({ event }) => event.type === 'call.answered' && event.by === 'machine',
    carriesAgent: ({ event }) => event.type === 'call.agentConnected' && hasText(event.agentId),
    abandonTimerIsCurrent: ({ context, event }) => event.type === 'call.abandonTimerExpired' && event.armedAt === context.answeredAt,
    wrapUpTimerIsCurrent: ({ context, event }) => event.type === 'call.wrapUpExpired' && event.armedAt === context.hungUpAt,
    /** Only the call's own agent, a supervisor or the system may set its disposition. */
    mayDisposition: ({ context, event }) =>
      event.type === 'call.dispositioned' &&
      hasText(event.disposition) &&
      (event.actor.kind === 'supervisor' ||
        event.actor.kind === 'system' ||
        (event.actor.kind === 'agent' && event.actor.id !== undefined && event.actor.id === context.agentId)),
  },
});

/** Reads a field the current state guarantees (the answer time once answered, the agent once connected). */
function present<T>(value: T | null, field: string): T {
  if (value === null) throw new DomainError('machine.invalidInput', `Outbound call has no ${field} in a state that requires one`);
  return value;
}

const recordDisposition = callSetup.assign({
  disposition: ({ event }) => (event as CallEventOf<'call.dispositioned'>).disposition,
});

/** Entry of a final state: stamp the outcome and tell the host. */
function finish(outcome: CallOutcome) {
  return [
    callSetup.assign({ outcome, finishedAt: ({ event }) => event.at }),
    {
      type: 'reportOutcome' as const,
      params: ({ context }: { context: OutboundCallContext }) => ({
        callId: context.id,
        tenantId: context.tenantId,
        campaignId: context.campaignId,
        contactId: context.contactId,
        attempt: context.attempt,
        outcome,
        disposition: context.disposition,
        at: present(context.finishedAt, 'end time'),
      }),
    },
  ];
}

/** Carrier results possible while the call is being placed or is ringing. */
const carrierResults = {
  'call.answered': [
    {
      guard: 'answeredByHuman' as const,
      target: 'answeredByHuman',
      actions: callSetup.assign({ answeredAt: ({ event }) => event.at }),
    },
    {
      guard: 'answeredByMachine' as const,
      target: 'answeringMachine',
      actions: [
        callSetup.assign({ answeredAt: ({ event }) => event.at }),
        {
          type: 'hangUp' as const,
          params: ({ context }: { context: OutboundCallContext }) => ({ callId: context.id, reason: 'answeringMachine' as const }),
        },
      ],
    },
  ],
  'call.busy': { target: 'busy' },
  'call.notAnswered': { target: 'noAnswer' },
  'call.failed': {
    guard: 'carriesReason' as const,
    target: 'failed',
    actions: callSetup.assign({ endReason: ({ event }) => (event as CallEventOf<'call.failed'>).reason }),
  },
};

export const outboundCallMachine = callSetup.createMachine({
  id: 'outbound-call',
  context: ({ input }) => createContext(input),
  initial: 'queued',
  states: {
    queued: {
      on: {
        'call.dialed': { target: 'dialing', actions: callSetup.assign({ dialedAt: ({ event }) => event.at }) },
        'call.cancelled': {
          guard: 'carriesReason',
          target: 'cancelled',
          actions: callSetup.assign({ endReason: ({ event }) => (event as CallEventOf<'call.cancelled'>).reason }),
        },
      },
    },
    dialing: {
      entry: {
        type: 'placeCall',
        params: ({ context }) => ({
          callId: context.id,
          tenantId: context.tenantId,
          campaignId: context.campaignId,
          phone: context.phone,
          attempt: context.attempt,
        }),
      },
      on: {
        'call.ringing': { target: 'ringing', actions: callSetup.assign({ ringingAt: ({ event }) => event.at }) },
        ...carrierResults,
      },
    },
    ringing: { on: carrierResults },
    answeredByHuman: {
      entry: [
        {
          type: 'requestAgent',
          params: ({ context }) => ({
            callId: context.id,
            tenantId: context.tenantId,
            campaignId: context.campaignId,
            answeredAt: present(context.answeredAt, 'answer time'),
          }),
        },
        {
          type: 'scheduleAbandonTimer',
          params: ({ context }) => ({
            callId: context.id,
            armedAt: present(context.answeredAt, 'answer time'),
            delayMs: context.abandonThresholdMs,
          }),
        },
      ],
      exit: { type: 'cancelAbandonTimer', params: ({ context }) => ({ callId: context.id }) },
      on: {
        'call.agentConnected': {
          guard: 'carriesAgent',
          target: 'connected',
          actions: callSetup.assign({
            agentId: ({ event }) => (event as CallEventOf<'call.agentConnected'>).agentId,
            connectedAt: ({ event }) => event.at,
          }),
        },
        'call.abandonTimerExpired': {
          guard: 'abandonTimerIsCurrent',
          target: 'abandoned',
          actions: { type: 'hangUp', params: ({ context }) => ({ callId: context.id, reason: 'abandoned' as const }) },
        },
        // The contact gave up before an agent came: still an abandoned call for the regulator.
        'call.hungUp': { target: 'abandoned', actions: callSetup.assign({ hungUpAt: ({ event }) => event.at }) },
      },
    },
    connected: {
      entry: { type: 'bridgeAgent', params: ({ context }) => ({ callId: context.id, agentId: present(context.agentId, 'agent') }) },
      on: {
        'call.hungUp': { target: 'wrapUp', actions: callSetup.assign({ hungUpAt: ({ event }) => event.at }) },
        'call.dispositioned': { guard: 'mayDisposition', actions: recordDisposition },
      },
    },
    wrapUp: {
      entry: [
        { type: 'releaseAgent', params: ({ context }) => ({ callId: context.id, agentId: present(context.agentId, 'agent') }) },
        {
          type: 'scheduleWrapUpEnd',
          params: ({ context }) => ({
            callId: context.id,
            agentId: present(context.agentId, 'agent'),
            armedAt: present(context.hungUpAt, 'hang-up time'),
          }),
        },
      ],
      exit: { type: 'cancelWrapUpEnd', params: ({ context }) => ({ callId: context.id }) },
      on: {
        'call.dispositioned': { guard: 'mayDisposition', target: 'done', actions: recordDisposition },
        'call.wrapUpExpired': { guard: 'wrapUpTimerIsCurrent', target: 'done' },
      },
    },
    done: { type: 'final', entry: finish('done') },
    abandoned: { type: 'final', entry: finish('abandoned') },
    answeringMachine: { type: 'final', entry: finish('answeringMachine') },
    busy: { type: 'final', entry: finish('busy') },
    noAnswer: { type: 'final', entry: finish('noAnswer') },
    failed: { type: 'final', entry: finish('failed') },
    cancelled: { type: 'final', entry: finish('cancelled') },
  },
});

export type OutboundCallSnapshot = SnapshotFrom<typeof outboundCallMachine>;

export function describeOutboundCallState(snapshot: OutboundCallSnapshot): OutboundCallStatus {
  return leafState(snapshot.value) as OutboundCallStatus;
}

/** The attempt's final states, read from the machine: each is an outcome. */
export const FINAL_CALL_STATUSES = Object.entries(outboundCallMachine.states)
  .filter(([, node]) => node.type === 'final')
  .map(([status]) => status as OutboundCallStatus);

/** Placed and not answered yet: the carrier decides what happens next. */
export const UNANSWERED_CALL_STATUSES = ['queued', 'dialing', 'ringing'] as const satisfies readonly OutboundCallStatus[];

/** States in which the call holds (or is getting) a carrier leg; leaving them means hanging it up. */
export const CARRIER_LEG_CALL_STATUSES = [
  ...UNANSWERED_CALL_STATUSES,
  'answeredByHuman',
  'connected',
] as const satisfies readonly OutboundCallStatus[];

/** A person answered (whatever came after): the pacer's and the board's answer-rate numerator. */
export const HUMAN_ANSWERED_CALL_STATUSES = [
  'answeredByHuman',
  'connected',
  'wrapUp',
  'done',
  'abandoned',
] as const satisfies readonly OutboundCallStatus[];
