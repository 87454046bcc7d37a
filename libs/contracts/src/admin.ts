import { LIMITS, type ChannelName } from './constants';

/**
 * Administration screens: paged lists, the audit trail and the validation rules both the API and
 * the console run (one implementation, so the form and the server can never disagree).
 */
export type SortOrder = 'asc' | 'desc';

/** Query of every admin list: GET /api/<area>?page=&pageSize=&sortField=&sortOrder=&q= */
export interface PagedQuery {
  page?: number;
  pageSize?: number;
  sortField?: string;
  sortOrder?: SortOrder;
  /** Free text matched (case-insensitive, contains) against the area's searchable columns. */
  q?: string;
}

export const ADMIN_PAGE_SIZES = [10, 25, 50, 100] as const;
export const ADMIN_MAX_PAGE_SIZE = 200;

export type AuditAction = 'create' | 'update' | 'delete';
export interface AuditEntry {
  id: string;
  entityType: string;
  entityId: string;
  action: AuditAction;
  actorUserId: string | null;
  actorName: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  createdAt: string;
}

/** Field limits of the admin areas. The campaign identifier bound is ours (the spec gives none). */
export const ADMIN_LIMITS = {
  nameMax: 160,
  descriptionMax: 500,
  campaignIdentifierMax: 20,
  customerMax: 160,
  shortcutMax: 40,
  minChatsPerAgent: 1,
  maxChatsPerAgent: LIMITS.maxChatsPerAgent,
  predefinedMessageMax: LIMITS.maxMessageLength,
} as const;

/** An i18n key under `validation.` with its values; the server turns it into an English message. */
export type RuleKey =
  | 'required'
  | 'maxLength'
  | 'minLength'
  | 'range'
  | 'integer'
  | 'dateOrder'
  | 'date'
  | 'email'
  | 'oneOf'
  | 'pattern'
  | 'unknown'
  | 'rankSum'
  | 'minOptions'
  | 'digits'
  | 'duplicate'
  | 'weakPassword'
  | 'personalPassword'
  | 'blockedAddress'
  | 'sourceAddress'
  | 'maxItems';
export interface RuleIssue {
  field: string;
  key: RuleKey;
  values?: Record<string, string | number>;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

type Bag = Record<string, unknown>;
const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : value == null ? '' : String(value));

/** Small rule builder: each check adds at most one issue per field (the first that fails). */
class Checker {
  readonly issues: RuleIssue[] = [];
  constructor(private readonly input: Bag) {}
  private has(field: string): boolean {
    return this.issues.some((issue) => issue.field === field);
  }
  private add(field: string, key: RuleKey, values?: RuleIssue['values']): this {
    if (!this.has(field)) this.issues.push(values ? { field, key, values } : { field, key });
    return this;
  }
  required(field: string): this {
    const value = this.input[field];
    if (value === undefined || value === null || text(value) === '') this.add(field, 'required');
    return this;
  }
  maxLength(field: string, max: number): this {
    if (text(this.input[field]).length > max) this.add(field, 'maxLength', { count: max });
    return this;
  }
  minLength(field: string, min: number): this {
    const value = this.input[field];
    if (typeof value === 'string' && value !== '' && value.length < min) this.add(field, 'minLength', { count: min });
    return this;
  }
  email(field: string): this {
    const value = text(this.input[field]);
    if (value !== '' && !EMAIL.test(value)) this.add(field, 'email');
    return this;
  }
  intRange(field: string, min: number, max: number): this {
    const raw = this.input[field];
    if (raw === undefined || raw === null || raw === '') return this;
    const value = typeof raw === 'number' ? raw : Number(raw);
    if (!Number.isInteger(value)) return this.add(field, 'integer');
    if (value < min || value > max) this.add(field, 'range', { min, max });
    return this;
  }
  date(field: string): this {
    const value = text(this.input[field]);
    if (value !== '' && (!ISO_DATE.test(value) || Number.isNaN(Date.parse(value)))) this.add(field, 'date');
    return this;
  }
  dateOrder(fromField: string, toField: string): this {
    const from = text(this.input[fromField]);
    const to = text(this.input[toField]);
    if (ISO_DATE.test(from) && ISO_DATE.test(to) && from >= to) this.add(toField, 'dateOrder');
    return this;
  }
  oneOf(field: string, options: readonly string[]): this {
    const value = text(this.input[field]);
    if (value !== '' && !options.includes(value)) this.add(field, 'oneOf', { options: options.join(', ') });
    return this;
  }
}

export interface CampaignInput {
  name: string;
  description: string;
  fromDate: string;
  toDate: string;
  identifier: string;
  allowedChatsPerAgent: number;
  templateCampaign: boolean;
  customer: string | null;
}

/** Spec §5: name, description and both dates required, from before to, chats per agent 1..5. */
export function validateCampaign(input: Partial<Record<keyof CampaignInput, unknown>>): RuleIssue[] {
  return new Checker(input)
    .required('name')
    .maxLength('name', ADMIN_LIMITS.nameMax)
    .required('description')
    .maxLength('description', ADMIN_LIMITS.descriptionMax)
    .required('fromDate')
    .date('fromDate')
    .required('toDate')
    .date('toDate')
    .dateOrder('fromDate', 'toDate')
    .required('identifier')
    .maxLength('identifier', ADMIN_LIMITS.campaignIdentifierMax)
    .required('allowedChatsPerAgent')
    .intRange('allowedChatsPerAgent', ADMIN_LIMITS.minChatsPerAgent, ADMIN_LIMITS.maxChatsPerAgent)
    .maxLength('customer', ADMIN_LIMITS.customerMax).issues;
}

export const PREDEFINED_MESSAGE_SCOPES = ['tenant', 'line', 'personal'] as const;
export type PredefinedMessageScope = (typeof PREDEFINED_MESSAGE_SCOPES)[number];

export interface PredefinedMessageInput {
  message: string;
  shortcut: string;
  scope: PredefinedMessageScope;
  /** Required when scope is 'line'. */
  attentionLineId: string | null;
}

/**
 * What an agent types after '/' in the desk to pick the message: letters (any script), digits, '_'
 * and '-' — exactly what the desk's "/shortcut" matcher recognises.
 */
export const PREDEFINED_SHORTCUT_PATTERN = /^[\p{L}\p{N}_-]+$/u;

/** The shortcut as stored: trimmed, without the leading '/' people naturally type ("/hello" → "hello"). */
export function normalizePredefinedShortcut(value: unknown): string {
  return text(value).replace(/^\/+/, '').trim();
}

/** Spec §5: message required, at most 500 characters; the shortcut is judged as stored (see above). */
export function validatePredefinedMessage(input: Partial<Record<keyof PredefinedMessageInput, unknown>>): RuleIssue[] {
  const shortcut = normalizePredefinedShortcut(input.shortcut);
  const checker = new Checker({ ...input, shortcut })
    .required('message')
    .maxLength('message', ADMIN_LIMITS.predefinedMessageMax)
    .required('shortcut')
    .maxLength('shortcut', ADMIN_LIMITS.shortcutMax)
    .required('scope')
    .oneOf('scope', PREDEFINED_MESSAGE_SCOPES);
  if (shortcut !== '' && !checker.issues.some((issue) => issue.field === 'shortcut') && !PREDEFINED_SHORTCUT_PATTERN.test(shortcut)) {
    checker.issues.push({ field: 'shortcut', key: 'pattern' });
  }
  if (text(input.scope) === 'line') checker.required('attentionLineId');
  return checker.issues;
}

export interface UserInput {
  name: string;
  email: string;
  roleId: string;
  /** Required when creating; empty on edit keeps the current password. */
  password: string;
  passwordExpiresAt: string | null;
  active: boolean;
  attentionLineIds: string[];
  campaignIds: string[];
  /** Pause reasons the user may take; empty means every reason of the tenant. */
  pauseReasonCodes: string[];
}

/** Spec §5: role required, password ≥ 8 when given (edit only: new users are invited), valid email. */
export function validateUser(input: Partial<Record<keyof UserInput, unknown>>, mode: 'create' | 'update'): RuleIssue[] {
  const checker = new Checker(input).required('name').maxLength('name', ADMIN_LIMITS.nameMax);
  checker.required('email').email('email').maxLength('email', 254).required('roleId');
  // A new user chooses their own password from the invitation mail: creating never takes one.
  if (mode === 'update') checker.minLength('password', LIMITS.minPasswordLength).maxLength('password', 256);
  checker.date('passwordExpiresAt');
  return checker.issues;
}

/** English sentence for an issue (server messages name the field, like class-validator's). */
export function describeIssue(issue: RuleIssue): string {
  const v = issue.values ?? {};
  switch (issue.key) {
    case 'required':
      return `${issue.field} is required`;
    case 'maxLength':
      return `${issue.field} must be at most ${v.count} characters`;
    case 'minLength':
      return `${issue.field} must be at least ${v.count} characters`;
    case 'range':
      return `${issue.field} must be between ${v.min} and ${v.max}`;
    case 'integer':
      return `${issue.field} must be a whole number`;
    case 'date':
      return `${issue.field} must be a date (YYYY-MM-DD)`;
    case 'dateOrder':
      return `${issue.field} must be after the start date`;
    case 'email':
      return `${issue.field} must be an email`;
    case 'oneOf':
      return `${issue.field} must be one of ${v.options}`;
    case 'unknown':
      return `${issue.field} has unknown values: ${v.values}`;
    case 'rankSum':
      return `lowerRank and upperRank must sum to ${v.sum}`;
    case 'minOptions':
      return `${issue.field} needs at least ${v.count} options`;
    case 'digits':
      return `${issue.field} must have at least ${v.count} digits`;
    case 'duplicate':
      return `${issue.field} is repeated`;
    case 'pattern':
      return `${issue.field} is not in the expected format`;
    case 'weakPassword':
      return `${issue.field} is too common or too easy to guess: use a less predictable one, or a passphrase of ${v.count} or more characters`;
    case 'personalPassword':
      return `${issue.field} must not be made from your email address or name`;
    case 'blockedAddress':
      return `${issue.field} must point to a public address: ${v.reason} addresses are refused for outgoing connections`;
    case 'sourceAddress':
      return `${issue.field} has "${v.value}", which is not an IP address or a CIDR network (203.0.113.10, 203.0.113.0/24, 2001:db8::/32)`;
    case 'maxItems':
      return `${issue.field} must have at most ${v.count} entries`;
  }
}

export interface CampaignSummary extends CampaignInput {
  id: string;
  createdAt: string;
  updatedAt: string;
}

export interface PredefinedMessageSummary extends PredefinedMessageInput {
  id: string;
  ownerUserId: string | null;
  attentionLineName: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AdminUserDetail {
  id: string;
  email: string;
  name: string;
  roleId: string;
  roleCode: string;
  active: boolean;
  passwordExpiresAt: string | null;
  attentionLineIds: string[];
  campaignIds: string[];
  pauseReasonCodes: string[];
  lastLoginAt: string | null;
  createdAt: string;
}

export interface OptionItem {
  id: string;
  name: string;
}

/** A role the user form offers; `grantable` is false when it holds permissions the caller lacks (grants never exceed the granter). */
export interface RoleOptionItem extends OptionItem {
  grantable: boolean;
}

/** Everything the user form picks from, in one call (GET /api/users/form-options). */
export interface UserFormOptions {
  roles: RoleOptionItem[];
  attentionLines: OptionItem[];
  campaigns: OptionItem[];
  pauseReasons: { code: string; label: string }[];
}

export interface RoleInput {
  code: string;
  name: string;
  permissions: string[];
  /** Optional menu curation, in order (paths of APP_ROUTES); empty = every route the permissions open. */
  menuPaths: string[];
}

export const ROLE_CODE_PATTERN = /^[A-Z][A-Z0-9_]{1,39}$/;

/** Role code upper-case (A-Z, 0-9, _; 2..40), name required, permissions from PERMISSIONS only. */
export function validateRole(
  input: Partial<Record<keyof RoleInput, unknown>>,
  knownPermissions: readonly string[],
  knownPaths: readonly string[],
): RuleIssue[] {
  const checker = new Checker(input).required('code').required('name').maxLength('name', 120);
  const issues = checker.issues;
  const code = text(input.code);
  if (code !== '' && !ROLE_CODE_PATTERN.test(code)) issues.push({ field: 'code', key: 'pattern' });
  const permissions = Array.isArray(input.permissions) ? input.permissions : [];
  const unknown = permissions.filter((p) => !knownPermissions.includes(String(p)));
  if (unknown.length) issues.push({ field: 'permissions', key: 'unknown', values: { values: unknown.join(', ') } });
  const paths = Array.isArray(input.menuPaths) ? input.menuPaths : [];
  const badPaths = paths.filter((p) => !knownPaths.includes(String(p)));
  if (badPaths.length) issues.push({ field: 'menuPaths', key: 'unknown', values: { values: badPaths.join(', ') } });
  return issues;
}

/** Channels a line can serve: the digital channels of spec §9 plus voice, email and video. */
export const ATTENTION_LINE_CHANNELS = [
  'WebChat',
  'FaceBook',
  'Instagram',
  'Twitter',
  'Telegram',
  'WhatsApp',
  'Phone',
  'Email',
  'Video',
] as const;
export const ATTENTION_LINE_TYPES = ['inbound', 'outbound'] as const;
/** Who gets a line's next customer: the agent idle the longest (default), or the one holding the fewest conversations. */
export const ROUTING_POLICIES = ['longest-idle', 'least-occupied'] as const;
export type RoutingPolicyName = (typeof ROUTING_POLICIES)[number];
/** A line's priority: its customers are served before those of lower priority in any queue they wait in. */
export const LINE_PRIORITY_MAX = 9;
/** A line's own queue timeout, in seconds (the same bounds as the account's maximum queue wait). */
export const LINE_QUEUE_TIMEOUT_RANGE = { min: 30, max: 86_400 } as const;
/** Chats an agent on a line's call may hold at most (blended agents): up to an agent's largest capacity. */
export const LINE_CHATS_DURING_CALL_MAX = 5;

/** One opening window of a weekday (0 = Sunday … 6 = Saturday), times 'HH:MM' in the tenant's zone. */
export interface BusinessHoursWindow {
  day: number;
  from: string;
  to: string;
}

export interface AttentionLineInput {
  name: string;
  type: string;
  channel: string;
  businessUnit: string | null;
  originType: string | null;
  originLine: string | null;
  serviceType: string | null;
  internal: boolean;
  businessHours: BusinessHoursWindow[];
  /** Post-conversation poll (one of the tenant's polls): asked in the web chat when it ends. */
  pollId: string | null;
  /** The campaign whose live queue counts this line's waiting customers. */
  campaignId: string | null;
  routingPolicy: RoutingPolicyName;
  /** 0 (default) to LINE_PRIORITY_MAX; a conversation keeps the priority of the line it came in by. */
  priority: number;
  /** How long a customer may wait in this line's queue; null = the account's maximum queue wait. */
  queueTimeoutSeconds: number | null;
  /** Blended agents: chats an agent on a call may hold, 0 (default, none) to LINE_CHATS_DURING_CALL_MAX. */
  chatsDuringCall: number;
  /** Blended agents: whether this line's calls may be offered to an agent holding chats (default false). */
  offerCallsWithChats: boolean;
}

export interface AttentionLineSummary extends AttentionLineInput {
  id: string;
  createdAt: string;
  updatedAt: string;
}

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

export function validateAttentionLine(input: Partial<Record<keyof AttentionLineInput, unknown>>): RuleIssue[] {
  const checker = new Checker(input)
    .required('name')
    .maxLength('name', ADMIN_LIMITS.nameMax)
    .required('type')
    .oneOf('type', ATTENTION_LINE_TYPES)
    .required('channel')
    .oneOf('channel', ATTENTION_LINE_CHANNELS)
    .maxLength('businessUnit', 120)
    .maxLength('originType', 40)
    .maxLength('originLine', 120)
    .maxLength('serviceType', 40)
    // Left out, the routing settings take their defaults (see DEFAULT_LINE_ROUTING in the API).
    .oneOf('routingPolicy', ROUTING_POLICIES)
    .intRange('priority', 0, LINE_PRIORITY_MAX)
    .intRange('queueTimeoutSeconds', LINE_QUEUE_TIMEOUT_RANGE.min, LINE_QUEUE_TIMEOUT_RANGE.max)
    .intRange('chatsDuringCall', 0, LINE_CHATS_DURING_CALL_MAX);
  const issues = checker.issues;
  const hours = Array.isArray(input.businessHours) ? (input.businessHours as Partial<BusinessHoursWindow>[]) : [];
  const bad = hours.find(
    (w) =>
      !Number.isInteger(w?.day) ||
      (w.day as number) < 0 ||
      (w.day as number) > 6 ||
      !HHMM.test(String(w.from)) ||
      !HHMM.test(String(w.to)) ||
      String(w.from) >= String(w.to),
  );
  if (bad) issues.push({ field: 'businessHours', key: 'pattern' });
  return issues;
}

export interface QnaInput {
  question: string;
  answer: string;
  category: string | null;
  active: boolean;
}

export interface QnaSummary extends QnaInput {
  id: string;
  createdAt: string;
  updatedAt: string;
}

/** A knowledge entry found by GET /api/qna/search, best match first. */
export interface QnaHit {
  id: string;
  question: string;
  answer: string;
  category: string | null;
  rank: number;
}

export const QNA_LIMITS = { questionMax: 300, answerMax: 4000, categoryMax: 80 } as const;

export function validateQna(input: Partial<Record<keyof QnaInput, unknown>>): RuleIssue[] {
  return new Checker(input)
    .required('question')
    .maxLength('question', QNA_LIMITS.questionMax)
    .required('answer')
    .maxLength('answer', QNA_LIMITS.answerMax)
    .maxLength('category', QNA_LIMITS.categoryMax).issues;
}

export const POLL_RESPONSE_TYPES = ['text', 'single', 'multiple', 'scale', 'yesno'] as const;
export type PollResponseType = (typeof POLL_RESPONSE_TYPES)[number];

export interface PollQuestionInput {
  text: string;
  responseType: PollResponseType;
  /** Choices of single/multiple questions (unless an answer group supplies them). */
  options: string[];
  answerGroupId: string | null;
}

export interface PollInput {
  name: string;
  description: string | null;
  active: boolean;
  /** Share (percent) of the lower and upper rank of the poll's scale; they must sum to 100. */
  lowerRank: number;
  upperRank: number;
  questions: PollQuestionInput[];
}

export interface PollQuestionSummary extends PollQuestionInput {
  id: string;
  position: number;
}

export interface PollSummary extends Omit<PollInput, 'questions'> {
  id: string;
  questionCount: number;
  questions: PollQuestionSummary[];
  createdAt: string;
  updatedAt: string;
}

export interface AnswerGroupInput {
  name: string;
  options: string[];
}

export interface AnswerGroupSummary extends AnswerGroupInput {
  id: string;
}

export interface PollAnswer {
  id: string;
  questionId: string;
  questionText: string;
  value: string;
  conversationId: string | null;
  createdAt: string;
}

export interface PollQuestionStats {
  questionId: string;
  questionText: string;
  responseType: PollResponseType;
  total: number;
  counts: { value: string; count: number }[];
}

export const POLL_LIMITS = { questionsMax: 50, optionsMax: 20, optionMax: 120, questionTextMax: 300 } as const;

/** Spec §5: lower and upper rank must sum to 100 (60 + 30 is refused). */
export function validatePoll(input: Partial<Record<keyof PollInput, unknown>>): RuleIssue[] {
  const checker = new Checker(input)
    .required('name')
    .maxLength('name', ADMIN_LIMITS.nameMax)
    .maxLength('description', ADMIN_LIMITS.descriptionMax)
    .required('lowerRank')
    .intRange('lowerRank', 0, LIMITS.rankSum)
    .required('upperRank')
    .intRange('upperRank', 0, LIMITS.rankSum);
  const issues = checker.issues;
  const lower = Number(input.lowerRank);
  const upper = Number(input.upperRank);
  if (!issues.some((i) => i.field === 'lowerRank' || i.field === 'upperRank') && lower + upper !== LIMITS.rankSum) {
    issues.push({ field: 'upperRank', key: 'rankSum', values: { sum: LIMITS.rankSum } });
  }
  const questions = Array.isArray(input.questions) ? (input.questions as Partial<PollQuestionInput>[]) : [];
  if (questions.length === 0) issues.push({ field: 'questions', key: 'required' });
  if (questions.length > POLL_LIMITS.questionsMax)
    issues.push({ field: 'questions', key: 'range', values: { min: 1, max: POLL_LIMITS.questionsMax } });
  questions.forEach((question, index) => {
    const prefix = `questions.${index}`;
    const q = new Checker({ text: question?.text, responseType: question?.responseType })
      .required('text')
      .maxLength('text', POLL_LIMITS.questionTextMax)
      .required('responseType')
      .oneOf('responseType', POLL_RESPONSE_TYPES);
    issues.push(...q.issues.map((issue) => ({ ...issue, field: `${prefix}.${issue.field}` })));
    const options = Array.isArray(question?.options) ? question.options.map((o) => text(o)).filter(Boolean) : [];
    const choice = question?.responseType === 'single' || question?.responseType === 'multiple';
    if (choice && !question?.answerGroupId && options.length < 2)
      issues.push({ field: `${prefix}.options`, key: 'minOptions', values: { count: 2 } });
    if (options.length > POLL_LIMITS.optionsMax || options.some((o) => o.length > POLL_LIMITS.optionMax)) {
      issues.push({ field: `${prefix}.options`, key: 'maxLength', values: { count: POLL_LIMITS.optionMax } });
    }
  });
  return issues;
}

export function validateAnswerGroup(input: Partial<Record<keyof AnswerGroupInput, unknown>>): RuleIssue[] {
  const issues = new Checker(input).required('name').maxLength('name', ADMIN_LIMITS.nameMax).issues;
  const options = Array.isArray(input.options) ? input.options.map((o) => text(o)).filter(Boolean) : [];
  if (options.length < 2) issues.push({ field: 'options', key: 'minOptions', values: { count: 2 } });
  return issues;
}

/** A job of QUEUES.phoneListImport (API produces, worker consumes). */
export interface PhoneListImportJob {
  importId: string;
}

/**
 * Import limits (QUALITY.md: bounded size, rows and inflated size, refused before full inflation).
 * The ratio bounds each zip entry's declared inflated size against its compressed size.
 */
export const PHONE_IMPORT_LIMITS = {
  maxFileBytes: 5 * 1024 * 1024,
  maxRows: 50_000,
  maxInflatedBytes: 40 * 1024 * 1024,
  maxZipEntries: 100,
  maxCompressionRatio: 100,
  /** Cells in one row (and the highest column a cell may sit in); the sheet format itself stops at 16384 (XFD). */
  maxColumns: 1000,
  /** Characters in one cell: Excel's own limit. */
  maxCellChars: 32_767,
  /** Distinct texts in an xlsx's shared-string table (each is kept in memory while the sheet is read). */
  maxSharedStrings: 1_000_000,
  /** Time budget of reading and checking one file, in milliseconds: a slower file is refused, never left hanging. */
  parseTimeoutMs: 30_000,
} as const;

export type PhoneImportStatus = 'queued' | 'running' | 'done' | 'failed';

/** Why the worker refused an import as a whole (PhoneImportState.failureCode). */
export const PHONE_IMPORT_FAILURE_CODES = [
  'too_large',
  'not_spreadsheet',
  'invalid_xlsx',
  'too_many_parts',
  'zip_bomb',
  'unsupported_compression',
  'no_worksheet',
  'formulas',
  'too_many_rows',
  'rows_invalid',
  'no_phones',
  'encrypted',
  'bad_cell_reference',
  'too_many_columns',
  'cell_too_large',
  'too_many_cells',
  'too_slow',
  'import_failed',
] as const;
export type PhoneImportFailureCode = (typeof PHONE_IMPORT_FAILURE_CODES)[number];

export interface PhoneListSummary {
  id: string;
  name: string;
  entryCount: number;
  createdAt: string;
}

export interface PhoneListEntry {
  id: string;
  phone: string;
  name: string | null;
  line: number;
}

export interface PhoneImportState {
  id: string;
  listName: string;
  fileName: string;
  status: PhoneImportStatus;
  /** 0..100 */
  progress: number;
  totalRows: number;
  importedRows: number;
  errorRows: number;
  /** A refusal of the whole file (too big, zip bomb, formulas...), else null. English, for logs and the CSV. */
  failure: string | null;
  /** The same refusal as a stable code the console translates (null for imports refused before codes existed). */
  failureCode: PhoneImportFailureCode | null;
  phoneListId: string | null;
  createdAt: string;
}

/** Spec §5/§9: a phone number needs at least 8 digits (before E.164 normalisation). */
export function phoneDigits(raw: string): string {
  return raw.replace(/\D/g, '');
}
export function validatePhone(raw: string): RuleIssue | null {
  if (text(raw) === '') return { field: 'phone', key: 'required' };
  if (phoneDigits(raw).length < LIMITS.minPhoneDigits) return { field: 'phone', key: 'digits', values: { count: LIMITS.minPhoneDigits } };
  return null;
}

/** Spreadsheet exports: a cell starting with = + - @, tab or CR is prefixed with ' so no program runs it. */
export function neutraliseCell(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** Tenant-wide console settings (/platformSettings/platformSettings). */
export interface PlatformSettings {
  welcomeMessage: string;
  offHoursMessage: string;
  /** Minutes of agent inactivity before the console signs out (5..1440). */
  idleLogoutMinutes: number;
  /** Seconds a conversation may wait in queue before it closes (30..86400), for lines without their own queue timeout. */
  maxQueueWaitSeconds: number;
  emoticons: string[];
  /** Record inbound calls from the agent's answer (issue 22): off until the tenant turns it on. */
  callRecording: boolean;
  /** Tell the caller the call is recorded (spoken in the tenant's language) before the agent is rung. */
  announceCallRecording: boolean;
  /** Days a call recording is kept before the retention sweep deletes it (CALL_RECORDING_RETENTION_DAYS). */
  callRecordingRetentionDays: number;
}

/** Bounds of PlatformSettings.callRecordingRetentionDays (one day to ten years). */
export const CALL_RECORDING_RETENTION_DAYS = { min: 1, max: 3650, default: 90 } as const;

/** The emoticons the desk offers while a tenant has configured none (the settings screen shows the same list). */
export const DEFAULT_EMOTICONS: readonly string[] = [
  '😀',
  '😊',
  '😉',
  '😂',
  '🙂',
  '😍',
  '🤔',
  '😢',
  '😮',
  '👍',
  '👏',
  '🙏',
  '🎉',
  '❤️',
  '✅',
  '👋',
];

/**
 * What is in effect before a tenant saves anything: the one source for the settings screen and the
 * server. Empty messages mean the widget's own texts in the visitor's language (no tenant text);
 * the emoticons are the list the desk offers.
 */
export const DEFAULT_PLATFORM_SETTINGS: PlatformSettings = {
  welcomeMessage: '',
  offHoursMessage: '',
  idleLogoutMinutes: 30,
  maxQueueWaitSeconds: 1800,
  emoticons: [...DEFAULT_EMOTICONS],
  callRecording: false,
  announceCallRecording: true,
  callRecordingRetentionDays: CALL_RECORDING_RETENTION_DAYS.default,
};

export function validatePlatformSettings(input: Partial<Record<keyof PlatformSettings, unknown>>): RuleIssue[] {
  const issues = new Checker(input)
    .maxLength('welcomeMessage', LIMITS.maxMessageLength)
    .maxLength('offHoursMessage', LIMITS.maxMessageLength)
    .required('idleLogoutMinutes')
    .intRange('idleLogoutMinutes', 5, 1440)
    .required('maxQueueWaitSeconds')
    .intRange('maxQueueWaitSeconds', 30, 86_400)
    .intRange('callRecordingRetentionDays', CALL_RECORDING_RETENTION_DAYS.min, CALL_RECORDING_RETENTION_DAYS.max).issues;
  const emoticons = Array.isArray(input.emoticons) ? input.emoticons : [];
  if (emoticons.length > 60 || emoticons.some((e) => typeof e !== 'string' || e.length === 0 || e.length > 16)) {
    issues.push({ field: 'emoticons', key: 'maxLength', values: { count: 16 } });
  }
  return issues;
}

/** Per-channel configuration fields; `secrets` are encrypted at rest and only ever answered masked. */
export const CHANNEL_FIELDS: Record<ChannelName, { settings: readonly string[]; secrets: readonly string[] }> = {
  // The sites that may frame the widget are the client's `allowedOrigins` (one place): not a channel field.
  WebChat: { settings: ['widgetTitle'], secrets: [] },
  FaceBook: { settings: ['pageId'], secrets: ['pageAccessToken', 'appSecret'] },
  Instagram: { settings: ['accountId'], secrets: ['accessToken', 'appSecret'] },
  Twitter: { settings: ['accountHandle'], secrets: ['apiKey', 'apiSecret', 'accessToken', 'accessTokenSecret'] },
  Telegram: { settings: ['botUsername'], secrets: ['botToken', 'webhookSecret'] },
  WhatsApp: { settings: ['phoneNumberId', 'businessAccountId'], secrets: ['accessToken', 'appSecret', 'verifyToken'] },
};
export const SECRET_MASK = '••••••••';

export interface ChannelConfigView {
  channel: ChannelName;
  channelId: number;
  enabled: boolean;
  settings: Record<string, string>;
  /** Each secret as SECRET_MASK when set, '' when not: never the value. */
  secrets: Record<string, string>;
  updatedAt: string | null;
}

export interface ChannelConfigInput {
  enabled: boolean;
  settings: Record<string, string>;
  /** '' clears a secret; SECRET_MASK (or an absent key) keeps the stored one. */
  secrets: Record<string, string>;
}

/** A customer (tenant) and its branding, edited by its reseller's administrators. */
export interface ClientInput {
  name: string;
  bannerUrl: string | null;
  loginImageUrl: string | null;
  mainColor: string | null;
  menuLogoUrl: string | null;
  completeMenuLogoUrl: string | null;
  subscriptionPlan: string | null;
  /** Sites that may embed this tenant's web-chat widget, as origins (`https://shop.example`). */
  allowedOrigins: string[];
}
export interface ClientSummary extends ClientInput {
  id: string;
  /** The reseller that owns the tenant (the platform operator's list spans every reseller). */
  resellerId: string;
  resellerName: string;
  createdAt: string;
}
/**
 * POST /api/clients: the tenant and its first administrator, invited by email in the same
 * transaction. resellerId is for the platform operator only (reseller staff always create under
 * their own reseller).
 */
export interface CreateClientRequest extends ClientInput {
  adminEmail: string;
  adminName: string;
  resellerId?: string;
}
export interface CreateClientResult extends ClientSummary {
  invitation: InvitationSummary;
}

/** A reseller (brand) as the platform operator and its own staff see it. */
export interface ResellerSummary {
  id: string;
  name: string;
  tenantCount: number;
  createdAt: string;
}
/** POST /api/resellers (platform operator): the reseller and its first administrator, invited by email. */
export interface CreateResellerRequest {
  name: string;
  adminEmail: string;
  adminName: string;
}

/** A pending invitation of the caller's organisation (GET /api/invitations). The token is never shown. */
export interface InvitationSummary {
  id: string;
  email: string;
  name: string;
  roleId: string;
  roleName: string;
  expiresAt: string;
  createdAt: string;
}
/**
 * GET /api/clients/:id/invitations (reseller staff and the platform): the state of a tenant's first
 * administrator, so an expired or mistyped first invitation never strands the tenant.
 */
export interface FirstAdminState {
  /** Active users holding the tenant's built-in administrator role. */
  activeAdmins: number;
  /** Pending (not accepted, not revoked) invitations to that role, newest first; expired ones included. */
  invitations: InvitationSummary[];
}
/** POST /api/clients/:id/invitations: invites another first administrator to the tenant. */
export interface FirstAdminInvite {
  adminEmail: string;
  adminName: string;
}
/** What the public accept page shows for a valid invitation token (POST /api/invitations/check). */
export interface InvitationCheck {
  valid: true;
  email: string;
  name: string;
  organisationName: string;
  expiresAt: string;
}
export const INVITATION_TTL_DAYS = 7;

export function validateInvitee(input: { adminEmail?: unknown; adminName?: unknown }): RuleIssue[] {
  return new Checker(input)
    .required('adminName')
    .maxLength('adminName', ADMIN_LIMITS.nameMax)
    .required('adminEmail')
    .email('adminEmail')
    .maxLength('adminEmail', 254).issues;
}

// An absolute http(s) URL or a path on the console itself; never `//host` or backslashes (browsers read both as another host).
const URL_PATTERN = /^(https?:\/\/[^\s\\]+|\/(?![/\\])[^\s\\]+)$/;
/** Scheme, host and optional port only: the API puts these into a CSP frame-ancestors header. */
export const ORIGIN_PATTERN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i;
export const MAX_ALLOWED_ORIGINS = 20;

/** Trims, drops blanks and a trailing slash, and removes duplicates (case-insensitively). */
export function normalizeOrigins(origins: readonly unknown[]): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const raw of origins) {
    const origin = typeof raw === 'string' ? raw.trim().replace(/\/+$/, '') : '';
    if (!origin || seen.has(origin.toLowerCase())) continue;
    seen.add(origin.toLowerCase());
    result.push(origin);
  }
  return result;
}
const COLOUR_PATTERN = /^#[0-9a-fA-F]{6}$/;

export function validateClient(input: Partial<Record<keyof ClientInput, unknown>>): RuleIssue[] {
  const checker = new Checker(input).required('name').maxLength('name', ADMIN_LIMITS.nameMax).maxLength('subscriptionPlan', 60);
  const issues = checker.issues;
  for (const field of ['bannerUrl', 'loginImageUrl', 'menuLogoUrl', 'completeMenuLogoUrl'] as const) {
    const value = text(input[field]);
    if (value && (value.length > 2048 || !URL_PATTERN.test(value))) issues.push({ field, key: 'pattern' });
  }
  const colour = text(input.mainColor);
  if (colour && !COLOUR_PATTERN.test(colour)) issues.push({ field: 'mainColor', key: 'pattern' });
  const origins = input.allowedOrigins ?? [];
  if (
    !Array.isArray(origins) ||
    origins.some((origin) => typeof origin !== 'string' || !ORIGIN_PATTERN.test(origin.trim().replace(/\/+$/, '')))
  ) {
    issues.push({ field: 'allowedOrigins', key: 'pattern' });
  } else if (normalizeOrigins(origins).length > MAX_ALLOWED_ORIGINS) {
    issues.push({ field: 'allowedOrigins', key: 'range', values: { min: 0, max: MAX_ALLOWED_ORIGINS } });
  }
  return issues;
}
