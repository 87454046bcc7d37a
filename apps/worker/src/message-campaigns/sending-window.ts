import { isWithinCallingWindow, nextCallingWindowStart, type CallingWindows } from '@centralita/domain';

/** When a recipient may be sent to: now, later (the next opening), or never (its zone is unknown). */
export type SendingSlot = { kind: 'now' } | { kind: 'later'; at: number } | { kind: 'unknownZone' };

/**
 * A message campaign's sending window for one recipient: the dialer's calling windows, judged the
 * same way (the recipient's local time, the zone taken from the number, daylight-saving shifts
 * included). No windows (null) = any hour. A number whose zone is unknown, or windows that never
 * open, cannot be shown to be inside a window: never sent (the dialer never calls those either).
 */
export function sendingSlot(phone: string, at: number, windows: CallingWindows | null | undefined): SendingSlot {
  if (!windows) return { kind: 'now' };
  const e164 = `+${phone.replace(/\D/g, '')}`;
  if (isWithinCallingWindow(e164, at, windows)) return { kind: 'now' };
  const next = nextCallingWindowStart(e164, at, windows);
  return next === null ? { kind: 'unknownZone' } : { kind: 'later', at: next };
}
