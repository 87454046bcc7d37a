/** Every HTTP answer of the API has this shape (spec §7). statusCode mirrors the HTTP status. */
export interface Envelope<T> {
  statusCode: number;
  data: T | null;
  errorMessage: string | null;
  /** Stable machine-readable code from ERROR_CODES, for clients that translate errors themselves. */
  errorCode?: ErrorCode;
}

/** Generic messages of the spec's error catalogue (§8). Contracts: keep the text exactly. */
export const CATALOGUE_MESSAGES = {
  500: 'Internal Server Error',
  401: 'Invalid credentials',
  404: 'Sorry! the data you are looking for could not be found',
  generic: 'We have encountered an issue. Please try again later.',
  noActiveChat: 'No active chat found.',
  noAttentionLine: 'No attention line found',
  noServers: 'No servers found, contact Administrator',
  noCampaign: 'You have not logged in a campaign',
  noSession: 'There is no active session',
  emailNeedsCase: 'You cannot close the email without creating the corresponding case.',
  audioNotFound: 'The audio was not found, please try again later.',
  downloadFailed: 'Failed to download the file.',
  outsideVpn: 'You are connected outside VPN',
} as const;

/** Machine-readable error codes; the console maps each to an i18n key `errors.<code>`. */
export const ERROR_CODES = [
  'validation',
  'invalid_credentials',
  'unauthorized',
  'session_expired',
  'forbidden',
  'not_found',
  'conflict',
  'rate_limited',
  'payload_too_large',
  'reset_token_invalid',
  'invitation_invalid',
  'refresh_token_invalid',
  'user_exists',
  'account_disabled',
  'password_expired',
  'weak_password',
  'registration_link_invalid',
  'illegal_transition',
  /** Free text to a messaging customer after the channel's reply window (WhatsApp 24 h): only a template may go. */
  'reply_window_closed',
  /** The customer blocked the bot or opted out of messages: nothing may be sent to them. */
  'contact_opted_out',
  /** An `Idempotency-Key` already used by this caller for a different request (422). */
  'idempotency_key_reused',
  /** The first call with this `Idempotency-Key` is still running; repeat it shortly for its answer (409). */
  'idempotency_in_progress',
  'service_unavailable',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];
