/** Softphone (sip.js in the console, /SoftPhoneNew/Phone and docked in the agent desk). */

/** What the signed-in agent's phone needs to register; the password is only ever sent to its owner. */
export interface SoftphoneSettings {
  configured: boolean;
  /** e.g. wss://sip.example.com:8443 */
  wsUrl: string;
  /** SIP domain: the agent's address is sip:<extension>@<domain>. */
  domain: string;
  extension: string;
  authUser: string;
  password: string;
  displayName: string;
  /** STUN/TURN URLs; empty means host candidates only. */
  iceServers: string[];
}

/** The tenant's SIP server, as administrators see and edit it. */
export interface SoftphoneConfig {
  wsUrl: string;
  domain: string;
  iceServers: string[];
  updatedAt: string | null;
}

/** An agent's SIP account as administrators see it: the password only as SECRET_MASK or ''. */
export interface SoftphoneAccountView {
  userId: string;
  extension: string;
  authUser: string;
  password: string;
  updatedAt: string | null;
}

export interface SoftphoneAccountInput {
  extension: string;
  /** Defaults to the extension. */
  authUser?: string;
  /** '' clears it; SECRET_MASK (or absent) keeps the stored one. */
  password?: string;
}

/** Screen pop: who is calling, from the tenant's phone lists (and colleagues' extensions). */
export interface CallerLookup {
  number: string;
  contacts: CallerContact[];
}

export interface CallerContact {
  name: string | null;
  phone: string;
  /** The phone list it came from, or null for a colleague's extension. */
  listName: string | null;
  source: 'phoneList' | 'extension';
}

export const CALL_DIRECTIONS = ['inbound', 'outbound'] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];

/** Dispositions offered on hang-up. */
export const CALL_DISPOSITIONS = ['resolved', 'sale', 'callback', 'information', 'complaint', 'noAnswer', 'wrongNumber'] as const;
export type CallDisposition = (typeof CALL_DISPOSITIONS)[number];

export const CALL_NOTES_MAX = 1000;

export interface CallDispositionInput {
  /** The SIP Call-ID: saving twice for one call updates the same record. */
  callId: string;
  direction: CallDirection;
  remoteNumber: string;
  disposition: CallDisposition;
  notes?: string;
  contactName?: string;
  durationSeconds?: number;
}

export interface CallRecordView extends Required<Omit<CallDispositionInput, 'notes' | 'contactName' | 'durationSeconds'>> {
  id: string;
  notes: string | null;
  contactName: string | null;
  durationSeconds: number | null;
  createdAt: string;
}
