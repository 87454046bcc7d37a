import type { Actor, OutboundCallEvent } from '@centralita/domain';
import type { TelephonyEvent } from './telephony';

const CARRIER: Actor = { kind: 'system' };

/**
 * The outbound-call machine's event for a telephony event, one to one, stamped with the time the
 * telephony layer observed it. Pure: the host feeds the result to `step()`.
 */
export function toOutboundCallEvent(event: TelephonyEvent, actor: Actor = CARRIER): OutboundCallEvent {
  const stamp = { at: event.at, actor };
  switch (event.type) {
    case 'ringing':
      return { type: 'call.ringing', ...stamp };
    case 'answered':
      return { type: 'call.answered', by: event.by, ...stamp };
    case 'busy':
      return { type: 'call.busy', ...stamp };
    case 'noAnswer':
      return { type: 'call.notAnswered', ...stamp };
    case 'failed':
      // The machine keeps one reason string; the SIP status travels inside it so the log keeps it.
      return {
        type: 'call.failed',
        reason: event.sipStatus === undefined ? event.reason : `${event.reason} (SIP ${event.sipStatus})`,
        ...stamp,
      };
    case 'hungUp':
      return { type: 'call.hungUp', ...stamp };
  }
}
