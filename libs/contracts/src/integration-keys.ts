/**
 * Integration keys and the external dialer sign-in (issue 22 item 5; the spec's ExternLoginVicidial
 * and /session/vicidial/{id}[/{callback}]). A tenant's administrators create keys for outside
 * systems; a key holder asks POST /api/ExternLoginVicidial for a single-use, short-lived link that
 * signs one of the tenant's agents into the console.
 */

/** Header an integration key may travel in (else `Authorization: Bearer <key>`). */
export const INTEGRATION_KEY_HEADER = 'X-Api-Key';

/** Every key starts with this, so a leaked one is recognisable (secret scanners, logs). */
export const INTEGRATION_KEY_PREFIX = 'ctk_';

export const INTEGRATION_KEY_LIMITS = {
  nameMax: 80,
  /** Origins a key's callbacks may go to (empty: any public address, the outgoing-address policy). */
  callbackOriginsMax: 20,
  callbackMax: 2000,
  /** Active (not revoked) keys per tenant. */
  activeKeysMax: 50,
} as const;

/** Default life of a sign-in link (VICIDIAL_LINK_TTL_SECONDS). */
export const VICIDIAL_LINK_TTL_SECONDS = 120;

/** Query parameter the sign-in page reads to explain why a dialer link did not sign anyone in. */
export const VICIDIAL_NOTICE_PARAM = 'notice';
export const VICIDIAL_NOTICE_INVALID = 'vicidial-link-invalid';

export interface IntegrationKeySummary {
  id: string;
  name: string;
  /** The key's first characters (after the prefix), enough to tell keys apart; never the key. */
  hint: string;
  callbackOrigins: string[];
  createdAt: string;
  createdByName: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** POST /api/integration-keys: the key itself is in this answer only, once. */
export interface CreatedIntegrationKey extends IntegrationKeySummary {
  key: string;
}

export interface IntegrationKeyInput {
  name: string;
  callbackOrigins?: string[];
}

/** POST /api/ExternLoginVicidial body: the agent by user id or email, and where to return. */
export interface ExternLoginVicidialRequest {
  agent: string;
  callback?: string;
}

export interface ExternLoginVicidialResult {
  url: string;
  expiresAt: string;
}

/** Prefix of the short-lived API token `security/GetApiViciToken` gives a key holder (usable where the key is). */
export const VICIDIAL_API_TOKEN_PREFIX = 'cvt_';
/** Life of that token, in seconds: the dialer asks for a new one rather than keeping the key in every request. */
export const VICIDIAL_API_TOKEN_TTL_SECONDS = 900;

/** POST /api/security/GetApiViciToken answer. */
export interface ApiViciTokenResult {
  token: string;
  expiresAt: string;
}
