/**
 * Contacts as people (issue 20 item 6): the intake keeps one contact per channel identity (tenant,
 * channel, account, the provider's id); an agent merges identities that are the same person.
 */

/** One channel identity of a person. */
export interface ContactIdentity {
  id: string;
  channel: string;
  channelAccountId: string;
  externalId: string;
  name: string;
  email: string | null;
  createdAt: string;
}

/** A contact with the person it belongs to (null: not merged, a person of its own). */
export interface ContactSummary extends ContactIdentity {
  personId: string | null;
  /** How many identities the person has (1 when not merged). */
  identities: number;
}

export interface ContactTimelineConversation {
  kind: 'conversation';
  id: string;
  contactId: string | null;
  channel: string;
  status: string;
  lineName: string | null;
  createdAt: string;
  closedAt: string | null;
}

export interface ContactTimelineCase {
  kind: 'case';
  id: string;
  code: string | null;
  subject: string | null;
  status: string | null;
  conversationId: string;
  createdAt: string;
}

export type ContactTimelineEntry = ContactTimelineConversation | ContactTimelineCase;

export interface ContactMergeEvent {
  id: string;
  action: 'merge' | 'unmerge';
  contactId: string;
  otherContactId: string | null;
  actorName: string | null;
  at: string;
}

/** GET /api/contacts/:id/person: the person a contact belongs to, all its identities and its timeline. */
export interface ContactPersonView {
  contactId: string;
  personId: string | null;
  identities: ContactIdentity[];
  /** Conversations of every identity and the cases linked to them, newest first. */
  timeline: ContactTimelineEntry[];
  /** False when cases are not installed (no case_conversations table): the timeline then has conversations only. */
  casesAvailable: boolean;
  history: ContactMergeEvent[];
}
