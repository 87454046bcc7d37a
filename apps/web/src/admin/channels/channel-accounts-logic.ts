import {
  MESSAGING_KINDS,
  type ChannelAccountInput,
  type ChannelAccountUpdate,
  type ChannelAccountView,
  type ChannelKindView,
  type MessagingKind,
  type RuleIssue,
} from '@centralita/contracts';
import { serverIssues } from '../admin-logic';

/**
 * The channel accounts screen's rules, kept out of the components so they are tested as plain
 * functions: who counts as online, what the connect form shows for a kind, and what it sends.
 */

/** An account is online when the provider spoke to it lately: a webhook or a good check within a day. */
export const ONLINE_WINDOW_MS = 24 * 60 * 60 * 1000;

export type Presence = 'online' | 'other';
/** Why an account shows as it does (the indicator's tooltip). */
export type PresenceReason = 'disabled' | 'receiving' | 'checked' | 'checkFailed' | 'silent';

const recent = (iso: string | null | undefined, now: number) => {
  const at = iso ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(at) && now - at <= ONLINE_WINDOW_MS;
};

/** Spec §4's channel indicator: online or other. A disabled account is never online, whatever arrived. */
export function accountPresence(
  account: Pick<ChannelAccountView, 'enabled' | 'lastEventAt' | 'lastCheck'>,
  now: number = Date.now(),
): { presence: Presence; reason: PresenceReason } {
  if (!account.enabled) return { presence: 'other', reason: 'disabled' };
  if (recent(account.lastEventAt, now)) return { presence: 'online', reason: 'receiving' };
  // The last check decides when nothing arrived lately: a failure says more than the silence.
  if (account.lastCheck && !account.lastCheck.ok) return { presence: 'other', reason: 'checkFailed' };
  if (account.lastCheck?.ok && recent(account.lastCheck.at, now)) return { presence: 'online', reason: 'checked' };
  return { presence: 'other', reason: 'silent' };
}

/** The kinds the connect dialog offers, in the platform's order (X only when the API enables it). */
export function offeredKinds(kinds: ChannelKindView[]): ChannelKindView[] {
  return kinds.filter((kind) => kind.enabled).sort((a, b) => kindOrder(a.kind) - kindOrder(b.kind));
}

const kindOrder = (kind: string) => {
  const index = MESSAGING_KINDS.indexOf(kind as MessagingKind);
  return index === -1 ? MESSAGING_KINDS.length : index;
};

/** Every account of one kind ('all' for every kind), sorted by kind then name, for the grouped table. */
export function accountsShown(accounts: ChannelAccountView[], filter: MessagingKind | 'all'): ChannelAccountView[] {
  return accounts
    .filter((account) => filter === 'all' || account.kind === filter)
    .sort((a, b) => kindOrder(a.kind) - kindOrder(b.kind) || a.name.localeCompare(b.name));
}

/** How many accounts each kind has (the filter buttons' badges). */
export function countByKind(accounts: ChannelAccountView[]): Partial<Record<MessagingKind, number>> {
  const counts: Partial<Record<MessagingKind, number>> = {};
  for (const account of accounts) counts[account.kind] = (counts[account.kind] ?? 0) + 1;
  return counts;
}

/**
 * Credential names the console has a translated label and help text for (channels.credentials.*).
 * A name the API adds later still shows, under its own name, until it gets its text.
 */
export const KNOWN_CREDENTIALS = [
  'accessToken',
  'appSecret',
  'appId',
  'wabaId',
  'testNumbers',
  'businessAccountId',
  'phoneNumberId',
  'pageId',
  'pageAccessToken',
  'instagramAccountId',
  'botToken',
  'botUsername',
  'webhookSecret',
  'consumerKey',
  'consumerSecret',
  'accessTokenSecret',
  'bearerToken',
  'apiKey',
  'apiSecret',
  'clientId',
  'clientSecret',
  // Email (issue 20): the mailbox read over IMAP, the SMTP server replies leave by, the sender.
  'imapHost',
  'imapPort',
  'imapSecurity',
  'imapUser',
  'imapFolder',
  'imapPassword',
  'smtpHost',
  'smtpPort',
  'smtpSecurity',
  'smtpUser',
  'smtpPassword',
  'fromAddress',
  'fromName',
  'authServId',
  'campaignPerMinute',
] as const;
const KNOWN = new Set<string>(KNOWN_CREDENTIALS);

export const isKnownCredential = (name: string): boolean => KNOWN.has(name);

/** What the provider calls the account's id, per kind (the label and help of "provider account id"). */
export const EXTERNAL_ID_KIND: Record<MessagingKind, string> = {
  whatsapp: 'phoneNumberId',
  facebook: 'pageId',
  instagram: 'instagramAccountId',
  telegram: 'botId',
  twitter: 'userId',
  email: 'mailboxAddress',
};

export type CredentialField = { name: string; secret: boolean; known: boolean; stored: boolean };

/** The kind's credential inputs in the API's order: settings first (plain), then secrets (write-only). */
export function credentialFields(kind: ChannelKindView, account?: Pick<ChannelAccountView, 'secretsSet'> | null): CredentialField[] {
  const stored = new Set(account?.secretsSet ?? []);
  return [
    ...kind.settings.map((name) => ({ name, secret: false, known: KNOWN.has(name), stored: false })),
    ...kind.secrets.map((name) => ({ name, secret: true, known: KNOWN.has(name), stored: stored.has(name) })),
  ];
}

/** The connect/edit form's values: every input as text, secrets empty (an empty secret keeps the stored one). */
export interface AccountDraft {
  kind: MessagingKind | null;
  name: string;
  externalAccountId: string;
  attentionLineId: string;
  enabled: boolean;
  settings: Record<string, string>;
  secrets: Record<string, string>;
}

export function emptyDraft(kind: MessagingKind | null = null): AccountDraft {
  return { kind, name: '', externalAccountId: '', attentionLineId: '', enabled: true, settings: {}, secrets: {} };
}

/** An account as the edit form starts: its values, no secret (values never leave the server). */
export function draftOf(account: ChannelAccountView): AccountDraft {
  return {
    kind: account.kind,
    name: account.name,
    externalAccountId: account.externalAccountId,
    attentionLineId: account.attentionLineId,
    enabled: account.enabled,
    settings: { ...account.settings },
    secrets: {},
  };
}

/** Form field ids: 'name', 'externalAccountId', 'attentionLineId', 'settings.<name>', 'secrets.<name>', 'kind'. */
export type DraftErrors = Record<string, RuleIssue>;

export const NAME_MAX = 120;
export const EXTERNAL_ID_MAX = 200;

/**
 * What the form itself can tell before asking the API: required fields and lengths. A new account
 * needs every secret; an edited one only those never stored (empty keeps a stored secret).
 */
export function validateDraft(draft: AccountDraft, kind: ChannelKindView | null, account?: ChannelAccountView | null): DraftErrors {
  const errors: DraftErrors = {};
  const require = (field: string, value: string, max?: number) => {
    const text = value.trim();
    if (!text) errors[field] = { field, key: 'required' };
    else if (max && text.length > max) errors[field] = { field, key: 'maxLength', values: { count: max } };
  };
  if (!draft.kind || !kind) errors.kind = { field: 'kind', key: 'required' };
  require('name', draft.name, NAME_MAX);
  require('externalAccountId', draft.externalAccountId, EXTERNAL_ID_MAX);
  require('attentionLineId', draft.attentionLineId);
  if (kind) {
    const stored = new Set(account?.secretsSet ?? []);
    for (const name of kind.secrets) if (!stored.has(name)) require(`secrets.${name}`, draft.secrets[name] ?? '');
  }
  return errors;
}

const filled = (values: Record<string, string>, names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, (values[name] ?? '').trim()]).filter(([, value]) => value !== ''));

/** POST body: the kind's own settings and secrets only (a field left from another kind never leaks). */
export function createBody(draft: AccountDraft, kind: ChannelKindView): ChannelAccountInput {
  return {
    kind: kind.kind,
    name: draft.name.trim(),
    externalAccountId: draft.externalAccountId.trim(),
    attentionLineId: draft.attentionLineId,
    settings: filled(draft.settings, kind.settings),
    secrets: filled(draft.secrets, kind.secrets),
    enabled: draft.enabled,
  };
}

/** PUT body: every setting as the form shows it ('' clears one), secrets only those typed (the rest are kept). */
export function updateBody(draft: AccountDraft, kind: ChannelKindView): ChannelAccountUpdate {
  const body: ChannelAccountUpdate = {
    name: draft.name.trim(),
    externalAccountId: draft.externalAccountId.trim(),
    attentionLineId: draft.attentionLineId,
    settings: Object.fromEntries(kind.settings.map((name) => [name, (draft.settings[name] ?? '').trim()])),
    enabled: draft.enabled,
  };
  const secrets = filled(draft.secrets, kind.secrets);
  if (Object.keys(secrets).length > 0) body.secrets = secrets;
  return body;
}

/** A field's problem as the API named it: a shared rule (translated by key) or the API's own sentence. */
export type FieldProblem = RuleIssue | { field: string; message: string };

/**
 * The API's validation answer keyed by the form's field ids. It lists shared-rule `issues` or, as
 * the channel accounts API does, `fields` with their messages ({ 'secrets.appSecret': ['…'] }); a
 * bare credential name is matched against the kind's fields. What fits no field is `unplaced`.
 */
export function issuesAtFields(
  data: unknown,
  kind: ChannelKindView | null,
): { fields: Record<string, FieldProblem>; unplaced: FieldProblem[] } {
  const fields: Record<string, FieldProblem> = {};
  const unplaced: FieldProblem[] = [];
  const direct = new Set(['kind', 'name', 'externalAccountId', 'attentionLineId', 'enabled']);
  const place = (problem: FieldProblem) => {
    let field: string | null = null;
    if (direct.has(problem.field) || /^(settings|secrets)\.[\w-]+$/.test(problem.field)) field = problem.field;
    else if (kind?.secrets.includes(problem.field)) field = `secrets.${problem.field}`;
    else if (kind?.settings.includes(problem.field)) field = `settings.${problem.field}`;
    if (field) fields[field] ??= { ...problem, field };
    else unplaced.push(problem);
  };
  for (const issue of serverIssues(data)) place(issue);
  const named = (data as { fields?: unknown } | null)?.fields;
  if (named && typeof named === 'object' && !Array.isArray(named)) {
    for (const [field, messages] of Object.entries(named as Record<string, unknown>)) {
      const message = Array.isArray(messages) ? messages.find((entry): entry is string => typeof entry === 'string') : undefined;
      if (message) place({ field, message });
    }
  }
  return { fields, unplaced };
}

/** Text to show from the provider check: the account name when it passed, the provider's reason when not. */
export function checkOutcome(result: { ok: boolean; name?: string | null; message?: string | null }): {
  ok: boolean;
  text: string | null;
} {
  return result.ok ? { ok: true, text: result.name?.trim() || null } : { ok: false, text: result.message?.trim() || null };
}
