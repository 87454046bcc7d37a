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
  'idempotency_key_reused',
  'idempotency_in_progress',
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

/*
 * Refusals the API words in a machine-readable form (libs/contracts api-messages.ts): the DTO's
 * validation issues {field, rule, params}, the shared admin rules' issues {field, key, values},
 * and hand-written refusals with a messageKey. They are said in the user's language; the server's
 * English is kept only for a rule or key this console has no words for.
 */

/** Turns a request field ("roleId", "address.city") into the words a form shows for it, or undefined. */
export type FieldLabel = (field: string) => string | undefined;

export interface DescribeOptions {
  /** The form's own field labels; fields it does not name fall back to validation.fields.<name>, then to the humanised name. */
  fieldLabel?: FieldLabel;
}

type WireIssue =
  { field: string; rule: string; params?: Record<string, unknown> } | { field: string; key: string; values?: Record<string, unknown> };

const MISSING = '\u0000missing';

/** t(), or null when the dictionary has no such key (i18next answers the default value then). */
function known(t: Translate, key: string, options: Record<string, unknown> = {}): string | null {
  const text = t(key, { ...options, defaultValue: MISSING });
  return text === MISSING || text === key || text === '' ? null : text;
}

function dataOf(error: unknown): Record<string, unknown> | null {
  const data = isApiError(error) ? error.data : (error as { data?: unknown } | null)?.data;
  return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
}

function issuesOf(data: Record<string, unknown> | null): WireIssue[] {
  const issues = data?.issues;
  if (!Array.isArray(issues)) return [];
  return issues.filter(
    (issue): issue is WireIssue =>
      !!issue &&
      typeof issue === 'object' &&
      typeof (issue as { field?: unknown }).field === 'string' &&
      (typeof (issue as { rule?: unknown }).rule === 'string' || typeof (issue as { key?: unknown }).key === 'string'),
  );
}

/** Interpolation values of a DTO rule: lists joined, and `count` (for plurals) from the bound it names. */
function ruleValues(params: Record<string, unknown> = {}): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) values[name] = Array.isArray(value) ? value.join(', ') : value;
  const bound = typeof params.max === 'number' ? params.max : typeof params.min === 'number' ? params.min : undefined;
  if (bound !== undefined) values.count = bound;
  return values;
}

/** One issue as a sentence in the user's language (without the field), or null for a rule this console does not know. */
export function issueText(issue: WireIssue, t: Translate): string | null {
  // A pattern rule says only "the format is not valid": where the console knows the field's format
  // (validation.matches.<field>), it says which one, as the server's own message did.
  if ('rule' in issue && issue.rule === 'matches') {
    const specific = known(t, `validation.matches.${lastSegment(issue.field)}`);
    if (specific) return specific;
  }
  if ('rule' in issue) return known(t, `validation.rules.${issue.rule}`, ruleValues(issue.params));
  return known(t, `validation.${issue.key}`, issue.values ?? {});
}

/** The field a path ends with ("servers.0.wsUrl" → "wsUrl"). */
function lastSegment(field: string): string {
  return (
    field
      .split('.')
      .filter((part) => !/^\d+$/.test(part))
      .pop() ?? field
  );
}

/** "roleId" → "Role id", "allowed_chats" → "Allowed chats": the last word of a path, for fields no label names. */
export function humaniseField(field: string): string {
  const name =
    field
      .split('.')
      .filter((part) => !/^\d+$/.test(part))
      .pop() ?? field;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : field;
}

function labelOf(field: string, t: Translate, options: DescribeOptions): string {
  const own = options.fieldLabel?.(field);
  if (own) return own;
  return known(t, `validation.fields.${lastSegment(field)}`) ?? humaniseField(field);
}

/** The server's own message for a field (data.fields), the fallback for a rule with no translation. */
function serverFieldMessage(data: Record<string, unknown> | null, field: string): string | null {
  const fields = data?.fields as Record<string, unknown> | undefined;
  const messages = fields && typeof fields === 'object' ? fields[field] : undefined;
  return Array.isArray(messages) && typeof messages[0] === 'string' ? messages[0] : null;
}

/** A keyed refusal (data.messageKey) in the user's language, or null. */
function keyedMessage(data: Record<string, unknown> | null, t: Translate): string | null {
  if (!data || typeof data.messageKey !== 'string') return null;
  const params = data.messageParams && typeof data.messageParams === 'object' ? (data.messageParams as Record<string, unknown>) : {};
  return known(t, `apiMessages.${data.messageKey}`, params);
}

/** "<Field>: <sentence>" for each refused field (the first issue of each), or null when none can be said. */
function describeIssues(data: Record<string, unknown> | null, t: Translate, options: DescribeOptions): string | null {
  const seen = new Set<string>();
  const sentences: string[] = [];
  for (const issue of issuesOf(data)) {
    if (seen.has(issue.field)) continue;
    seen.add(issue.field);
    const text = issueText(issue, t) ?? serverFieldMessage(data, issue.field);
    if (text) sentences.push(`${labelOf(issue.field, t, options)}: ${text}`);
  }
  return sentences.length ? sentences.join(' ') : null;
}

/**
 * What to show next to each field of a form after the API refused it: the translated sentence of
 * its first issue, or a keyed refusal's text on the field it names (a duplicate identifier).
 */
export function fieldErrorTexts(error: unknown, t: Translate): Record<string, string> {
  const data = dataOf(error);
  const out: Record<string, string> = {};
  for (const issue of issuesOf(data)) {
    if (out[issue.field]) continue;
    const text = issueText(issue, t) ?? serverFieldMessage(data, issue.field);
    if (text) out[issue.field] = text;
  }
  const keyed = keyedMessage(data, t);
  const fields = data?.fields;
  if (keyed && fields && typeof fields === 'object') for (const field of Object.keys(fields)) out[field] ??= keyed;
  return out;
}

/** The sentence to show for a failed call, in the user's language. */
export function describeError(error: unknown, t: Translate, options: DescribeOptions = {}): string {
  const failure = toFailure(error);
  if (failure.kind === 'network') return t('errors.network', { cause: failure.detail ?? failure.message.replace(/^Error, /, '') });
  const lacking = grantRefusalPermissions(error);
  if (lacking) return t('errors.grantExceedsGranter', { permissions: lacking.join(', ') });
  const data = dataOf(error);
  const keyed = keyedMessage(data, t);
  if (keyed) return keyed;
  if (failure.code && CODE_FIRST.has(failure.code)) return t(`errors.${failure.code}`);
  if (failure.code === 'validation' || failure.status === 400) {
    const issues = describeIssues(data, t, options);
    if (issues) return issues;
  }
  const catalogueKey = CATALOGUE_KEYS.get(failure.message);
  if (catalogueKey) return t(`catalogue.${catalogueKey}`);
  const demoKey = DEMO_KEYS.get(failure.message);
  if (demoKey) return t(`demoErrors.${demoKey}`);
  if (failure.message.trim()) return failure.message;
  if (failure.code && (ERROR_CODES as readonly string[]).includes(failure.code)) return t(`errors.${failure.code}`);
  return t('catalogue.generic');
}
