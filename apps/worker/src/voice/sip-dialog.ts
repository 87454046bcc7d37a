import type * as sip from 'sip';

/** The dialog state of a leg the platform calls out on (an agent's, a consulted agent's, a supervisor's phone). */
export interface OutgoingDialog {
  uri: string;
  /** From the first 2xx: the callee's tag, its Contact (in-dialog requests go there) and the reversed Record-Route set. */
  remoteTag: string;
  remoteTarget: string;
  routeSet: sip.NameAddr[];
}

/** Learns the dialog from the first 2xx of an outgoing INVITE (RFC 3261 12.1.2); retransmissions change nothing. */
export function rememberDialog(leg: OutgoingDialog, response: sip.SipResponse): void {
  if (leg.remoteTag) return;
  const contact = Array.isArray(response.headers.contact) ? response.headers.contact[0]?.uri : undefined;
  leg.remoteTag = String(response.headers.to.params.tag ?? '');
  leg.remoteTarget = contact ?? leg.uri;
  leg.routeSet = (response.headers['record-route'] ?? []).map((entry) => ({ ...entry, params: { ...entry.params } })).reverse();
}
