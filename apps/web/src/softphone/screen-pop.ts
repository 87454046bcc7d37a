import type {
  ContactPersonView,
  ContactTimelineCase,
  ContactTimelineConversation,
  VoiceIvrPathStep,
  VoiceScreenPop,
} from '@centralita/contracts';

/**
 * Inbound calls the voice server bridges to the agent's softphone ('connect') carry the phone
 * conversation they belong to in this header (apps/worker/src/voice/voice-server.ts
 * CONVERSATION_HEADER): the ringing softphone opens that conversation's screen pop.
 */
export const CONVERSATION_HEADER = 'X-Centralita-Conversation';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The conversation id a header value names, or null (absent or not an id: an ordinary call, no screen pop). */
export function conversationIdFrom(value: string | null | undefined): string | null {
  const id = value?.trim() ?? '';
  return UUID.test(id) ? id.toLowerCase() : null;
}

/** "Menú principal › 1 Ventas": each step's name, after the key that led there when there was one. */
export function formatIvrPath(steps: VoiceIvrPathStep[], separator = ' › '): string {
  return steps
    .map((step) => [step.digit, step.name.trim()].filter(Boolean).join(' '))
    .filter(Boolean)
    .join(separator);
}

/** How long the caller has waited since they entered the queue (else since the call started), in ms; null if unknown. */
export function waitedMs(pop: Pick<VoiceScreenPop, 'queuedAt' | 'startedAt'>, now: number): number | null {
  const since = pop.queuedAt ?? pop.startedAt;
  if (!since) return null;
  const at = Date.parse(since);
  return Number.isNaN(at) ? null : Math.max(0, now - at);
}

const CLOSED_CASE = new Set(['resolved', 'closed']);

/** What the pop shows of the caller's contact, when the number matched one the tenant already knew. */
export interface KnownCaller {
  name: string;
  /** Their earlier conversations (not the ringing one), newest first, at most `limit`. */
  recent: ContactTimelineConversation[];
  /** Their cases that are not resolved or closed, newest first. */
  openCases: ContactTimelineCase[];
}

/**
 * The contact behind the ringing call, or null when the number is new to the tenant: the phone
 * intake creates a contact named after the number for every first call, so a contact is "known"
 * only when it has a name of its own, other identities, or history besides this conversation.
 */
export function knownCaller(
  person: ContactPersonView | null,
  conversationId: string,
  number: string | null,
  limit = 5,
): KnownCaller | null {
  if (!person) return null;
  const identity = person.identities.find((candidate) => candidate.id === person.contactId) ?? person.identities[0];
  const named = person.identities.find((candidate) => !sameNumber(candidate.name, number) && candidate.name.trim()) ?? null;
  const recent = person.timeline.filter(
    (entry): entry is ContactTimelineConversation => entry.kind === 'conversation' && entry.id !== conversationId,
  );
  const cases = person.timeline.filter((entry): entry is ContactTimelineCase => entry.kind === 'case');
  if (!named && recent.length === 0 && cases.length === 0 && person.identities.length <= 1) return null;
  return {
    name: (named ?? identity)?.name ?? number ?? '',
    recent: recent.slice(0, limit),
    openCases: cases.filter((entry) => !CLOSED_CASE.has(entry.status ?? '')),
  };
}

function sameNumber(name: string, number: string | null): boolean {
  const digits = (value: string | null) => (value ?? '').replace(/\D/g, '');
  return !!number && digits(name).length > 0 && digits(name) === digits(number) && !/[a-z]/i.test(name);
}
