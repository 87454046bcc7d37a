import { CATALOGUE_MESSAGES, ERROR_CODES, type ErrorCode } from '@centralita/contracts';
import type { AuthFailure } from '../auth/auth.machine';
import { isApiError } from './api-error';

export type Translate = (key: string, options?: Record<string, unknown>) => string;

const CATALOGUE_KEYS = new Map<string, string>(Object.entries(CATALOGUE_MESSAGES).map(([key, text]) => [text, key]));

/** Messages of the demo backend (spec §8) that the console may still meet. */
const DEMO_KEYS = new Map<string, string>([
  ['Email o contraseña invalida', 'invalidEmailOrPassword'],
  ['Invalid Authorization token', 'invalidAuthorizationToken'],
  ['User already exists!', 'userExists'],
  ['Internal server error', 'internalServerError'],
]);

/**
 * Codes whose own text says more than the server's message. 'validation' is not here: its
 * server message names the offending field, which a generic sentence would hide.
 */
const CODE_FIRST = new Set<ErrorCode>([
  'rate_limited',
  'user_exists',
  'account_disabled',
  'password_expired',
  'weak_password',
  'registration_link_invalid',
  'reset_token_invalid',
  'invitation_invalid',
  'refresh_token_invalid',
  'session_expired',
  'forbidden',
  'payload_too_large',
  'service_unavailable',
  'illegal_transition',
  'reply_window_closed',
  'contact_opted_out',
]);

function toFailure(error: unknown): AuthFailure {
  if (isApiError(error)) return { message: error.message, code: error.code, status: error.status, kind: error.kind, detail: error.detail };
  if (error && typeof error === 'object' && typeof (error as AuthFailure).message === 'string') return error as AuthFailure;
  return { message: error instanceof Error ? error.message : String(error ?? '') };
}

/**
 * The permissions a 403 "grant exceeds the granter" names (server: apps/api/src/modules/roles/grants.ts),
 * or null for any other failure.
 */
export function grantRefusalPermissions(error: unknown): string[] | null {
  if (!isApiError(error) || error.code !== 'forbidden' || !error.data || typeof error.data !== 'object') return null;
  const data = error.data as { reason?: unknown; missingPermissions?: unknown };
  if (data.reason !== 'grant_exceeds_granter' || !Array.isArray(data.missingPermissions)) return null;
  const permissions = data.missingPermissions.filter((value): value is string => typeof value === 'string');
  return permissions.length ? permissions : null;
}

/** The sentence to show for a failed call, in the user's language. */
export function describeError(error: unknown, t: Translate): string {
  const failure = toFailure(error);
  if (failure.kind === 'network') return t('errors.network', { cause: failure.detail ?? failure.message.replace(/^Error, /, '') });
  const lacking = grantRefusalPermissions(error);
  if (lacking) return t('errors.grantExceedsGranter', { permissions: lacking.join(', ') });
  if (failure.code && CODE_FIRST.has(failure.code)) return t(`errors.${failure.code}`);
  const catalogueKey = CATALOGUE_KEYS.get(failure.message);
  if (catalogueKey) return t(`catalogue.${catalogueKey}`);
  const demoKey = DEMO_KEYS.get(failure.message);
  if (demoKey) return t(`demoErrors.${demoKey}`);
  if (failure.message.trim()) return failure.message;
  if (failure.code && (ERROR_CODES as readonly string[]).includes(failure.code)) return t(`errors.${failure.code}`);
  return t('catalogue.generic');
}
