import type { ReplyWindowView } from '@centralita/contracts';
import { channelIdentity } from './channels';

/** Channels whose providers let a business answer freely only for a while after the customer wrote. */
const WINDOW_CHANNELS = ['whatsapp', 'facebook', 'instagram'];

export function hasReplyWindow(channel: string): boolean {
  return WINDOW_CHANNELS.includes(channelIdentity(channel).key);
}

export type ReplyWindowState =
  | { kind: 'loading' }
  /** No window (or no customer message yet to count from): free text, no banner. */
  | { kind: 'free' }
  /** Free text until `until` (ISO). */
  | { kind: 'open'; until: string }
  /** The window closed, but the account's human-agent tag still allows free text until `until`. */
  | { kind: 'humanAgent'; until: string }
  /** Only templates (when the account has them) can go out now. */
  | { kind: 'closed'; templates: boolean }
  /** The customer opted out (blocked the bot, wrote STOP): nothing can be sent. */
  | { kind: 'optedOut' };

const later = (iso: string | null, now: number): iso is string => iso !== null && Date.parse(iso) > now;

/**
 * What the composer may send now. `now` is on the server clock: the view says until when the
 * window is open, and it closes on screen at that moment without waiting for another read.
 */
export function replyWindowState(view: ReplyWindowView | null, now: number): ReplyWindowState {
  if (!view) return { kind: 'loading' };
  if (view.optedOut) return { kind: 'optedOut' };
  if (view.open && view.until === null) return { kind: 'free' };
  if (view.open && later(view.until, now)) return { kind: 'open', until: view.until };
  if (later(view.humanAgentUntil, now)) return { kind: 'humanAgent', until: view.humanAgentUntil };
  return { kind: 'closed', templates: view.templates };
}

export function allowsFreeText(state: ReplyWindowState): boolean {
  return state.kind === 'free' || state.kind === 'open' || state.kind === 'humanAgent';
}

/** Milliseconds until the state changes by itself (the window or the tag's time runs out), or null. */
export function msUntilChange(state: ReplyWindowState, now: number): number | null {
  if (state.kind !== 'open' && state.kind !== 'humanAgent') return null;
  return Math.max(0, Date.parse(state.until) - now);
}

const pad = (value: number) => String(value).padStart(2, '0');

/**
 * When the window closes, in the desk's 24-hour clock: "HH:mm" today, "DD-MM-YYYY HH:mm" on
 * another day (a 24-hour window opened this afternoon closes tomorrow).
 */
export function windowTime(iso: string, now: number): string {
  const at = new Date(iso);
  const today = new Date(now);
  const time = `${pad(at.getHours())}:${pad(at.getMinutes())}`;
  const sameDay = at.getFullYear() === today.getFullYear() && at.getMonth() === today.getMonth() && at.getDate() === today.getDate();
  return sameDay ? time : `${pad(at.getDate())}-${pad(at.getMonth() + 1)}-${at.getFullYear()} ${time}`;
}
