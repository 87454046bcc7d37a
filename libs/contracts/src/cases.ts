import type { RuleIssue } from './admin';

/*
 * The CRM case registry (spec §3, §5; /crm/crmlist). Shared by the API and the console: the shapes,
 * the fixed lists, and the rules a case must meet (checked on both sides, enforced by the API).
 */

export const CASE_STATUSES = ['open', 'in_progress', 'pending', 'resolved', 'closed'] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];
export const CASE_ACTIVITY_KINDS = ['call', 'task', 'meeting'] as const;
export type CaseActivityKind = (typeof CASE_ACTIVITY_KINDS)[number];
export const GEO_LEVELS = ['province', 'canton', 'district'] as const;
export type GeoLevel = (typeof GEO_LEVELS)[number];

export const CASE_LIMITS = {
  subjectMax: 200,
  descriptionMax: 4000,
  contactNameMax: 160,
  contactEmailMax: 254,
  contactPhoneMax: 40,
  idNumberMax: 40,
  noteMax: 4000,
  activityTitleMax: 200,
  mentionsMax: 20,
  /** Rows a synchronous case export writes at most. */
  exportMaxRows: 50_000,
} as const;

/** A case code as people read it: the tenant's sequence number, zero-padded ("C-000123"). */
export function caseCode(number: number): string {
  return `C-${String(number).padStart(6, '0')}`;
}

/** The sequence number a typed code stands for ("C-000123", "c-123", "123" → 123), or null. */
export function caseNumberOf(text: string): number | null {
  const match = /^\s*(?:c-?)?0*(\d{1,9})\s*$/i.exec(text);
  return match ? Number(match[1]) : null;
}

export interface CaseOption {
  id: string;
  code: string;
  name: string;
}
export interface IdentificationTypeOption extends CaseOption {
  /** A regular expression (source) the number must match, or null for free text. */
  pattern: string | null;
}
export interface GeoArea {
  id: string;
  level: GeoLevel;
  parentId: string | null;
  code: string;
  name: string;
}
export interface CaseUser {
  id: string;
  name: string;
}
export interface CaseOptions {
  types: CaseOption[];
  identificationTypes: IdentificationTypeOption[];
  provinces: GeoArea[];
  users: CaseUser[];
}

/** What a person writes on a case (create and edit). */
export interface CaseInput {
  typeId: string | null;
  subject: string;
  description: string;
  status: CaseStatus;
  ownerId: string | null;
  contactName: string | null;
  contactEmail: string | null;
  contactPhone: string | null;
  provinceId: string | null;
  cantonId: string | null;
  districtId: string | null;
  identificationTypeId: string | null;
  identificationNumber: string | null;
}

export interface CaseSummary {
  id: string;
  code: string;
  number: number;
  subject: string;
  status: CaseStatus;
  typeId: string | null;
  typeName: string | null;
  ownerId: string | null;
  ownerName: string | null;
  contactName: string | null;
  contactEmail: string | null;
  contactPhone: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface CaseNote {
  id: string;
  authorId: string;
  authorName: string;
  text: string;
  mentions: CaseUser[];
  createdAt: string;
}
export interface CaseActivity {
  id: string;
  kind: CaseActivityKind;
  title: string;
  dueAt: string | null;
  doneAt: string | null;
  assigneeId: string | null;
  assigneeName: string | null;
  createdAt: string;
}
export interface CaseLinkedConversation {
  conversationId: string;
  channel: string;
  customerName: string;
  status: string;
  createdAt: string;
  linkedAt: string;
}
export type CaseHistoryAction =
  | 'created'
  | 'changed'
  | 'note_added'
  | 'activity_added'
  | 'activity_done'
  | 'activity_reopened'
  | 'assigned'
  | 'unassigned'
  | 'linked'
  | 'unlinked';
export interface CaseHistoryEntry {
  id: string;
  action: CaseHistoryAction;
  actorId: string | null;
  actorName: string | null;
  field: string | null;
  oldValue: string | null;
  newValue: string | null;
  at: string;
}

export interface CaseDetail extends CaseSummary {
  description: string;
  provinceId: string | null;
  cantonId: string | null;
  districtId: string | null;
  identificationTypeId: string | null;
  identificationNumber: string | null;
  provinceName: string | null;
  cantonName: string | null;
  districtName: string | null;
  identificationTypeName: string | null;
  createdBy: string | null;
  closedAt: string | null;
  assignees: CaseUser[];
  notes: CaseNote[];
  activities: CaseActivity[];
  conversations: CaseLinkedConversation[];
  history: CaseHistoryEntry[];
}

/** GET /api/cases/by-conversation/:id: the linked case, or what a new one starts with. */
export interface ConversationCase {
  conversationId: string;
  channel: string;
  caseId: string | null;
  caseCode: string | null;
  prefill: { contactName: string | null; contactEmail: string | null; contactPhone: string | null };
}

export interface TranscriptMessage {
  id: string;
  sequence: number;
  senderKind: string;
  senderName: string | null;
  text: string;
  createdAt: string;
}
/** A linked conversation's transcript, with its recordings (audio and video) where any exist. */
export interface CaseTranscript {
  conversationId: string;
  channel: string;
  customerName: string;
  messages: TranscriptMessage[];
  /** voicemail: an audio recording that is a caller's message left on a line's voicemail (not a call with an agent). */
  recordings: { id: string; kind: 'audio' | 'video'; url: string; createdAt: string; voicemail?: boolean }[];
}

export interface CaseListFilters {
  status?: CaseStatus;
  typeId?: string;
  ownerId?: string;
  assigneeId?: string;
  from?: string;
  to?: string;
  q?: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;

/**
 * The rules of a case: description required (spec §5), subject required, lengths, a valid email,
 * a phone of at least 8 digits, a known status, and an identification number only with its type
 * (and matching the type's pattern when the type has one).
 */
export function validateCase(input: Partial<Record<keyof CaseInput, unknown>>, idPattern?: string | null): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const add = (field: string, key: RuleIssue['key'], values?: RuleIssue['values']) => {
    if (!issues.some((issue) => issue.field === field)) issues.push(values ? { field, key, values } : { field, key });
  };
  const max = (field: keyof CaseInput, count: number) => {
    const value = input[field];
    if (value != null && typeof value !== 'string') add(field, 'pattern');
    else if (text(value).length > count) add(field, 'maxLength', { count });
  };
  const textFields = ['subject', 'description', 'contactName', 'contactEmail', 'contactPhone', 'identificationNumber'] as const;
  for (const field of textFields) if (input[field] != null && typeof input[field] !== 'string') add(field, 'pattern');
  if (!text(input.subject)) add('subject', 'required');
  max('subject', CASE_LIMITS.subjectMax);
  if (!text(input.description)) add('description', 'required');
  max('description', CASE_LIMITS.descriptionMax);
  max('contactName', CASE_LIMITS.contactNameMax);
  max('contactEmail', CASE_LIMITS.contactEmailMax);
  if (text(input.contactEmail) && !EMAIL.test(text(input.contactEmail))) add('contactEmail', 'email');
  max('contactPhone', CASE_LIMITS.contactPhoneMax);
  const phone = text(input.contactPhone);
  if (phone && (!/^[+\d\s().-]+$/.test(phone) || phone.replace(/\D/g, '').length < 8)) add('contactPhone', 'digits', { count: 8 });
  if (input.status !== undefined && !(CASE_STATUSES as readonly unknown[]).includes(input.status))
    add('status', 'oneOf', { options: CASE_STATUSES.join(', ') });
  max('identificationNumber', CASE_LIMITS.idNumberMax);
  const idNumber = text(input.identificationNumber);
  if (idNumber && !input.identificationTypeId) add('identificationTypeId', 'required');
  if (idNumber && idPattern && !new RegExp(`^(?:${idPattern})$`).test(idNumber)) add('identificationNumber', 'pattern');
  return issues;
}

/** API → worker: import one geographic spreadsheet (geo_imports.id); job id = import id. */
export interface GeoImportJob {
  importId: string;
}
export type GeoImportStatus = 'queued' | 'running' | 'done' | 'failed';
/** An upload of provinces, cantons and districts and how its import went. */
export interface GeoImportState {
  id: string;
  fileName: string;
  status: GeoImportStatus;
  totalRows: number;
  importedAreas: number;
  errors: { line: number; value: string; reason: string }[];
  failure: string | null;
  failureCode: string | null;
  createdAt: string;
}
