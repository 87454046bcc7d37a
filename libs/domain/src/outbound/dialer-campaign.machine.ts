import { and, enqueueActions, setup, type SnapshotFrom } from 'xstate';
import { DomainError } from '../domain-error';
import { intent } from '../machines/intent';
import { leafState, type Stamped } from '../machines/machine-step';
import { DIALING_MODES, type DialingMode } from './pacer';

/**
 * A dialer campaign's lifecycle:
 *
 *   draft → scheduled → running ⇄ paused → completed
 *     └────────┴───────────┴─────────┴────→ cancelled
 *
 * `campaign.scheduled` sets the schedule window; the host arms a timer for its start (and end) and
 * sends `campaign.startTimeReached` / `campaign.endTimeReached` echoing `armedAt`, so a timer left
 * over from an earlier schedule is refused. A supervisor may also start a draft or scheduled
 * campaign at once, and `campaign.completed` is the host saying the contact list is exhausted.
 * A draft's dialing mode changes only by `campaign.modeChanged` (an edit), so the snapshot, its
 * version and the transition log agree with the row. Only supervisors and the system drive a
 * campaign; agents never do.
 */
export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export interface DialerCampaignContext {
  id: string;
  tenantId: string;
  mode: DialingMode;
  /** The schedule window (epoch ms); `endsAt` null means open-ended. */
  startsAt: number | null;
  endsAt: number | null;
  createdAt: number;
  startedAt: number | null;
  pausedAt: number | null;
  pauseReason: string | null;
  endedAt: number | null;
  /** 'exhausted' (all contacts done), 'windowEnded', or the supervisor's cancel reason. */
  endReason: string | null;
}

export interface DialerCampaignInput extends Stamped {
  id: string;
  tenantId: string;
  mode: DialingMode;
}

export type DialerCampaignEvent = Stamped &
  (
    | { type: 'campaign.scheduled'; startsAt: number; endsAt?: number | null }
    | { type: 'campaign.modeChanged'; mode: DialingMode }
    | { type: 'campaign.unscheduled' }
    | { type: 'campaign.startTimeReached'; armedAt: number }
    | { type: 'campaign.started' }
    | { type: 'campaign.paused'; reason?: string }
    | { type: 'campaign.resumed' }
    | { type: 'campaign.completed' }
    | { type: 'campaign.endTimeReached'; armedAt: number }
    | { type: 'campaign.cancelled'; reason: string }
  );

type CampaignEventOf<TType extends DialerCampaignEvent['type']> = Extract<DialerCampaignEvent, { type: TType }>;

function createContext(input: DialerCampaignInput): DialerCampaignContext {
  if (![input.id, input.tenantId].every((value) => typeof value === 'string' && value.trim().length > 0)) {
    throw new DomainError('machine.invalidInput', 'A campaign needs an id and a tenant');
  }
  if (!DIALING_MODES.includes(input.mode)) throw new DomainError('machine.invalidInput', `Unknown dialing mode '${String(input.mode)}'`);
  return {
    id: input.id,
    tenantId: input.tenantId,
    mode: input.mode,
    startsAt: null,
    endsAt: null,
    createdAt: input.at,
    startedAt: null,
    pausedAt: null,
    pauseReason: null,
    endedAt: null,
    endReason: null,
  };
}

/** The start of the window; `scheduled` guarantees it. */
function scheduledStart(context: DialerCampaignContext): number {
  if (context.startsAt === null) throw new DomainError('machine.invalidInput', 'Campaign has no start time in a state that requires one');
  return context.startsAt;
}

const campaignSetup = setup({
  types: {} as { context: DialerCampaignContext; events: DialerCampaignEvent; input: DialerCampaignInput },
  actions: {
    scheduleStart: intent<{ campaignId: string; armedAt: number }>(),
    cancelScheduledStart: intent<{ campaignId: string }>(),
    scheduleEnd: intent<{ campaignId: string; armedAt: number }>(),
    cancelScheduledEnd: intent<{ campaignId: string }>(),
    /** Pacing runs only while `running`: the host starts and stops its dialing loop on these. */
    startDialing: intent<{ campaignId: string; tenantId: string; mode: DialingMode }>(),
    stopDialing: intent<{ campaignId: string }>(),
    notifyCampaignEnded: intent<{ campaignId: string; tenantId: string; status: 'completed' | 'cancelled'; reason: string }>(),
  },
  guards: {
    actorMayDrive: ({ event }) => event.actor.kind === 'supervisor' || event.actor.kind === 'system',
    /** A window must start in the future (or now) and end after it starts. */
    windowIsValid: ({ event }) =>
      event.type === 'campaign.scheduled' &&
      Number.isFinite(event.startsAt) &&
      event.startsAt >= event.at &&
      (event.endsAt === undefined || event.endsAt === null || (Number.isFinite(event.endsAt) && event.endsAt > event.startsAt)),
    /** Starting or resuming past the window's end would dial outside the schedule. */
    beforeWindowEnd: ({ context, event }) => context.endsAt === null || event.at < context.endsAt,
    startTimerIsCurrent: ({ context, event }) => event.type === 'campaign.startTimeReached' && event.armedAt === context.startsAt,
    endTimerIsCurrent: ({ context, event }) => event.type === 'campaign.endTimeReached' && event.armedAt === context.endsAt,
    carriesReason: ({ event }) => event.type === 'campaign.cancelled' && event.reason.trim().length > 0,
    /** A known mode, other than the current one: an edit that changes nothing is not a step. */
    modeChanges: ({ context, event }) =>
      event.type === 'campaign.modeChanged' && DIALING_MODES.includes(event.mode) && event.mode !== context.mode,
  },
});

const endWith = (reason: (event: DialerCampaignEvent) => string) =>
  campaignSetup.assign(({ event }) => ({ endedAt: event.at, endReason: reason(event) }));

const cancelReason = (event: DialerCampaignEvent) => (event as CampaignEventOf<'campaign.cancelled'>).reason;

function notifyEnded(status: 'completed' | 'cancelled') {
  return {
    type: 'notifyCampaignEnded' as const,
    params: ({ context }: { context: DialerCampaignContext }) => ({
      campaignId: context.id,
      tenantId: context.tenantId,
      status,
      reason: context.endReason ?? status,
    }),
  };
}

const cancel = { guard: and(['actorMayDrive', 'carriesReason']), target: '#dialer-campaign.cancelled', actions: endWith(cancelReason) };
const start = { guard: and(['actorMayDrive', 'beforeWindowEnd']), target: 'live' };

export const dialerCampaignMachine = campaignSetup.createMachine({
  id: 'dialer-campaign',
  context: ({ input }) => createContext(input),
  initial: 'draft',
  states: {
    draft: {
      on: {
        'campaign.scheduled': {
          guard: 'windowIsValid',
          target: 'scheduled',
          actions: campaignSetup.assign(({ event }) => {
            const { startsAt, endsAt } = event as CampaignEventOf<'campaign.scheduled'>;
            return { startsAt, endsAt: endsAt ?? null };
          }),
        },
        'campaign.modeChanged': {
          guard: and(['actorMayDrive', 'modeChanges']),
          actions: campaignSetup.assign(({ event }) => ({ mode: (event as CampaignEventOf<'campaign.modeChanged'>).mode })),
        },
        'campaign.started': start,
        'campaign.cancelled': cancel,
      },
    },
    scheduled: {
      entry: {
        type: 'scheduleStart',
        params: ({ context }) => ({ campaignId: context.id, armedAt: scheduledStart(context) }),
      },
      // Leaving by the timer itself too: removing a fired job is harmless, and one exit covers every way out.
      exit: { type: 'cancelScheduledStart', params: ({ context }) => ({ campaignId: context.id }) },
      on: {
        'campaign.startTimeReached': { guard: 'startTimerIsCurrent', target: 'live' },
        'campaign.started': start,
        'campaign.unscheduled': {
          guard: 'actorMayDrive',
          target: 'draft',
          actions: campaignSetup.assign({ startsAt: null, endsAt: null }),
        },
        'campaign.cancelled': cancel,
      },
    },
    /** Started, whether dialing or paused; the window's end and cancellation apply to both. */
    live: {
      initial: 'running',
      entry: [
        campaignSetup.assign({ startedAt: ({ event }) => event.at }),
        enqueueActions(({ context, enqueue }) => {
          if (context.endsAt !== null) enqueue({ type: 'scheduleEnd', params: { campaignId: context.id, armedAt: context.endsAt } });
        }),
      ],
      exit: enqueueActions(({ context, enqueue }) => {
        if (context.endsAt !== null) enqueue({ type: 'cancelScheduledEnd', params: { campaignId: context.id } });
      }),
      on: {
        'campaign.completed': { guard: 'actorMayDrive', target: 'completed', actions: endWith(() => 'exhausted') },
        'campaign.endTimeReached': { guard: 'endTimerIsCurrent', target: 'completed', actions: endWith(() => 'windowEnded') },
        'campaign.cancelled': cancel,
      },
      states: {
        running: {
          entry: {
            type: 'startDialing',
            params: ({ context }) => ({ campaignId: context.id, tenantId: context.tenantId, mode: context.mode }),
          },
          exit: { type: 'stopDialing', params: ({ context }) => ({ campaignId: context.id }) },
          on: {
            'campaign.paused': {
              guard: 'actorMayDrive',
              target: 'paused',
              actions: campaignSetup.assign(({ event }) => ({
                pausedAt: event.at,
                pauseReason: (event as CampaignEventOf<'campaign.paused'>).reason ?? null,
              })),
            },
          },
        },
        paused: {
          exit: campaignSetup.assign({ pausedAt: null, pauseReason: null }),
          on: { 'campaign.resumed': { guard: and(['actorMayDrive', 'beforeWindowEnd']), target: 'running' } },
        },
      },
    },
    completed: { type: 'final', entry: notifyEnded('completed') },
    cancelled: { type: 'final', entry: notifyEnded('cancelled') },
  },
});

export type DialerCampaignSnapshot = SnapshotFrom<typeof dialerCampaignMachine>;

/** Started and not ended: dialing or paused (the children of the machine's `live` state). */
export const LIVE_CAMPAIGN_STATUSES = Object.keys(dialerCampaignMachine.states.live.states) as CampaignStatus[];

export function describeCampaignState(snapshot: DialerCampaignSnapshot): CampaignStatus {
  return leafState(snapshot.value) as CampaignStatus;
}

/** The one timer a campaign's state guards: its start while scheduled, its window's end while live. */
export interface CampaignTimer {
  event: 'campaign.startTimeReached' | 'campaign.endTimeReached';
  /** When it fires (epoch ms); the event echoes it as `armedAt`. */
  at: number;
}

/**
 * The timer the host keeps beside the snapshot (a deadline column written in the same UPDATE), read
 * from the state itself: what `scheduleStart`/`scheduleEnd` arm and their `cancel…` intents disarm.
 */
export function campaignTimer(snapshot: DialerCampaignSnapshot): CampaignTimer | null {
  const status = describeCampaignState(snapshot);
  const { startsAt, endsAt } = snapshot.context;
  if (status === 'scheduled' && startsAt !== null) return { event: 'campaign.startTimeReached', at: startsAt };
  if (LIVE_CAMPAIGN_STATUSES.includes(status) && endsAt !== null) return { event: 'campaign.endTimeReached', at: endsAt };
  return null;
}
