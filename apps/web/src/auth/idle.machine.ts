import { assign, setup, type SnapshotFrom } from 'xstate';

/** How long before the idle sign-out the console warns (the shortest idle time allowed is 5 minutes). */
export const IDLE_WARNING_MS = 60_000;

export interface IdleContext {
  idleMs: number;
  warningMs: number;
  /** The user's last activity in any tab of this browser (tabs share one session). */
  lastActivityAt: number;
}

export type IdleEvent =
  /** Pointer, keyboard, touch or focus in this tab. */
  | { type: 'idle.activity'; at: number }
  /** Another tab recorded activity (it shares the session, so it keeps this tab's too). */
  | { type: 'idle.sharedActivity'; at: number }
  /** "Stay signed in" on the warning. */
  | { type: 'idle.stay'; at: number }
  /** "Sign out" on the warning. */
  | { type: 'idle.signOut' };

export interface IdleInput {
  idleMinutes: number;
  now: number;
  warningMs?: number;
}

const timeLeft = (context: IdleContext) => context.lastActivityAt + context.idleMs - Date.now();

/**
 * Idle sign-out (platform settings' idleLogoutMinutes): watching → warning a minute before →
 * signedOut. Activity in this tab restarts the wait while watching; once the warning shows, only
 * "Stay signed in" or activity in another tab keeps the session, so a stray mouse move does not
 * dismiss it unread. Sharing activity with other tabs and signing out are the host's actions.
 */
export const idleMachine = setup({
  types: {
    context: {} as IdleContext,
    events: {} as IdleEvent,
    input: {} as IdleInput,
  },
  actions: {
    recordActivity: assign({
      lastActivityAt: ({ context, event }) => ('at' in event ? Math.max(context.lastActivityAt, event.at) : context.lastActivityAt),
    }),
    shareActivity: (_, _params: { at: number }) => {},
    signOut: () => {},
  },
  guards: {
    timeIsUp: ({ context }) => timeLeft(context) <= 0,
    warningIsDue: ({ context }) => timeLeft(context) <= context.warningMs,
    isNewer: ({ context, event }) => 'at' in event && event.at > context.lastActivityAt,
  },
  delays: {
    untilWarning: ({ context }) => Math.max(0, timeLeft(context) - context.warningMs),
    untilSignOut: ({ context }) => Math.max(0, timeLeft(context)),
  },
}).createMachine({
  id: 'idle',
  context: ({ input }) => ({
    idleMs: input.idleMinutes * 60_000,
    warningMs: Math.min(input.warningMs ?? IDLE_WARNING_MS, input.idleMinutes * 60_000),
    lastActivityAt: input.now,
  }),
  initial: 'watching',
  states: {
    watching: {
      after: { untilWarning: 'deciding' },
      on: {
        'idle.activity': {
          target: 'watching',
          reenter: true,
          actions: ['recordActivity', { type: 'shareActivity', params: ({ event }) => ({ at: event.at }) }],
        },
        'idle.sharedActivity': { guard: 'isNewer', target: 'watching', reenter: true, actions: 'recordActivity' },
      },
    },
    // Timers fire late (a sleeping laptop, a throttled background tab): decide from the clock.
    deciding: {
      always: [{ guard: 'timeIsUp', target: 'signedOut' }, { guard: 'warningIsDue', target: 'warning' }, { target: 'watching' }],
    },
    warning: {
      after: { untilSignOut: 'deciding' },
      on: {
        'idle.stay': {
          target: 'watching',
          actions: ['recordActivity', { type: 'shareActivity', params: ({ event }) => ({ at: event.at }) }],
        },
        'idle.sharedActivity': { guard: 'isNewer', target: 'deciding', actions: 'recordActivity' },
        'idle.signOut': 'signedOut',
      },
    },
    signedOut: { type: 'final', entry: 'signOut' },
  },
});

export type IdleSnapshot = SnapshotFrom<typeof idleMachine>;

/** Whole seconds until the sign-out, for the warning's countdown. */
export function secondsLeft(snapshot: IdleSnapshot, now: number): number {
  const { lastActivityAt, idleMs } = snapshot.context;
  return Math.max(0, Math.ceil((lastActivityAt + idleMs - now) / 1000));
}
