import { OUTBOUND_DISPOSITIONS, type OutboundDisposition } from '@centralita/contracts';

/**
 * Calls the outbound dialer bridges to the agent's softphone. The worker's INVITE to the agent
 * carries this header with the outbound call's id (apps/worker/src/telephony/telephony.ts,
 * OUTBOUND_CALL_ID_HEADER); such a call belongs to the dialer: its screen pop comes from the
 * outbound API, presence follows the outbound call machine, and its disposition is UpdDISPO
 * (POST /api/outbound/calls/:id/disposition), not a softphone call record.
 */
export const OUTBOUND_CALL_ID_HEADER = 'X-Outbound-Call-Id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The outbound call id a header value names, or null (absent, or not a call id: then it is an ordinary call). */
export function outboundCallIdFrom(value: string | null | undefined): string | null {
  const id = value?.trim() ?? '';
  return UUID.test(id) ? id.toLowerCase() : null;
}

/** The part of a softphone call that tells whose it is. */
export interface CallOwnership {
  outboundCallId?: string | null;
}

export function isDialerCall(call: CallOwnership | null | undefined): boolean {
  return !!call?.outboundCallId;
}

/** Where an ended call's disposition goes. */
export type DispositionTarget = { kind: 'outbound'; callId: string } | { kind: 'softphone' };

export function dispositionTarget(call: CallOwnership | null | undefined): DispositionTarget {
  return call?.outboundCallId ? { kind: 'outbound', callId: call.outboundCallId } : { kind: 'softphone' };
}

export function isOutboundDisposition(value: string): value is OutboundDisposition {
  return (OUTBOUND_DISPOSITIONS as readonly string[]).includes(value);
}

export type OutboundDispositionBody = { disposition: OutboundDisposition; callbackAt?: string };

/**
 * The UpdDISPO body from the form: a known disposition, and for 'callback' the time picked in the
 * browser's local time (datetime-local) as ISO. Null while the form is not complete.
 */
export function outboundDispositionBody(disposition: string, callbackAtLocal: string): OutboundDispositionBody | null {
  if (!isOutboundDisposition(disposition)) return null;
  if (disposition !== 'callback') return { disposition };
  if (!callbackAtLocal.trim()) return null;
  const when = new Date(callbackAtLocal);
  if (Number.isNaN(when.getTime())) return null;
  return { disposition, callbackAt: when.toISOString() };
}
