import type { RuleIssue } from './admin';
import { LANGUAGES, type Language } from './constants';

/**
 * IVRs and SIP trunks (spec §2 /settings/ivrMain, /settings/ivrs, /settings/submitivr,
 * /settings/troncals). The IVR tree rules live in @centralita/domain (validateIvrTree); the field
 * rules of the forms are here so the console and the API run the same functions.
 */

/** Keys a caller may press at an IVR prompt. */
export const IVR_DIGITS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '*', '#'] as const;
export type IvrDigit = (typeof IVR_DIGITS)[number];

/** Where an option (or a node's fallback) sends the call. */
export const IVR_DESTINATION_TYPES = ['line', 'agent', 'ivr', 'node', 'hangup', 'voicemail'] as const;
export type IvrDestinationType = (typeof IVR_DESTINATION_TYPES)[number];

export interface IvrDestination {
  type: IvrDestinationType;
  /**
   * Attention line id (line; voicemail: the line whose staff find the message), user id (agent), IVR id (ivr) or node
   * id of the same tree (node); null for hangup.
   */
  targetId: string | null;
}

export interface IvrOption {
  digit: string;
  label: string | null;
  destination: IvrDestination;
}

export interface IvrNode {
  /** Stable key inside the tree (client-chosen, e.g. "n1"); options of type node point at it. */
  id: string;
  name: string;
  promptText: string | null;
  promptAudioUrl: string | null;
  /**
   * File-store id of the prompt's audio (8 kHz mono 16-bit PCM WAV). In a draft: a recording the
   * administrator uploaded. In a published tree: that recording, or the speech rendered from
   * promptText at publish. Optional so trees stored before inbound voice stay valid.
   */
  promptAudioFileId?: string | null;
  /** Seconds to wait for a key after the prompt. */
  timeoutSeconds: number;
  /** Times the prompt is replayed after a timeout or an invalid key before the fallback. */
  maxRetries: number;
  /** Where the call goes once the retries are spent. */
  fallback: IvrDestination;
  options: IvrOption[];
}

export interface IvrTree {
  rootNodeId: string;
  nodes: IvrNode[];
}

export const IVR_LIMITS = {
  nameMax: 160,
  descriptionMax: 500,
  nodesMax: 50,
  nodeIdMax: 40,
  promptTextMax: 1000,
  urlMax: 500,
  labelMax: 80,
  timeoutMin: 1,
  timeoutMax: 60,
  retriesMax: 5,
} as const;

export interface IvrInput {
  name: string;
  description: string | null;
  active: boolean;
  /** Language the text prompts are spoken in (rendered with espeak-ng at publish); default the tenant's. */
  language: Language;
}

export interface IvrSummary extends IvrInput {
  id: string;
  /** 0 until the first apply. */
  publishedVersion: number;
  publishedAt: string | null;
  /** The draft differs from the published tree (or nothing is published yet). */
  hasUnpublishedChanges: boolean;
  /**
   * Whether the last publish turned every text prompt into audio: null before the first publish
   * (or when no node needed it), false when espeak-ng or sox is not installed on the server.
   */
  promptsRendered: boolean | null;
  nodeCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface IvrDetail extends IvrSummary {
  draftTree: IvrTree;
  publishedTree: IvrTree | null;
}

/** Everything the tree editor's destination pickers offer (GET /api/ivrs/destination-options). */
export interface IvrDestinationOptions {
  attentionLines: { id: string; name: string }[];
  agents: { id: string; name: string }[];
  ivrs: { id: string; name: string }[];
}

/** The issue keys of the tree rules (console: `telephony.issues.<key>`). */
export type IvrIssueKey =
  | 'required'
  | 'maxLength'
  | 'range'
  | 'oneOf'
  | 'pattern'
  | 'duplicate'
  | 'noOptions'
  | 'promptRequired'
  | 'unknownNode'
  | 'notFound'
  | 'selfIvr'
  | 'unreachable'
  | 'trap'
  | 'cycle'
  | 'blockedAddress';

export interface IvrIssue {
  field: string;
  key: IvrIssueKey;
  values?: Record<string, string | number>;
}

/** English sentence of a tree issue, naming the field (server messages). */
export function describeIvrIssue(issue: IvrIssue): string {
  const v = issue.values ?? {};
  switch (issue.key) {
    case 'required':
      return `${issue.field} is required`;
    case 'maxLength':
      return `${issue.field} must be at most ${v.count} characters`;
    case 'range':
      return `${issue.field} must be between ${v.min} and ${v.max}`;
    case 'oneOf':
      return `${issue.field} must be one of ${v.options}`;
    case 'pattern':
      return `${issue.field} is not in the expected format`;
    case 'duplicate':
      return `${issue.field} repeats key ${v.value} in this node`;
    case 'noOptions':
      return `${issue.field} needs at least one option`;
    case 'promptRequired':
      return `${issue.field} needs a prompt text or an audio URL`;
    case 'unknownNode':
      return `${issue.field} points at a node that does not exist in this tree`;
    case 'notFound':
      return `${issue.field} points at a ${v.type} that does not exist in this tenant`;
    case 'selfIvr':
      return `${issue.field} sends the call back to this same IVR (use a sub-node instead)`;
    case 'unreachable':
      return `${issue.field} cannot be reached from the first node`;
    case 'trap':
      return `${issue.field} loops between menus with no way to end the call`;
    case 'cycle':
      return `${issue.field} makes a loop between IVRs: ${v.path}`;
    case 'blockedAddress':
      return `${issue.field} must point to a public address: ${v.reason} addresses are refused for outgoing connections`;
  }
}

// ---------------------------------------------------------------------------------------------
// Trunks
// ---------------------------------------------------------------------------------------------

export const TRUNK_TRANSPORTS = ['udp', 'tcp', 'tls', 'ws', 'wss'] as const;
export type TrunkTransport = (typeof TRUNK_TRANSPORTS)[number];

export const TRUNK_LIMITS = {
  nameMax: 160,
  hostMax: 253,
  usernameMax: 128,
  passwordMax: 256,
  defaultPort: 5060,
  maxConcurrentCalls: 1000,
  /** Entries of `allowedSources`. */
  allowedSourcesMax: 100,
} as const;

export interface TrunkInput {
  name: string;
  host: string;
  port: number;
  transport: TrunkTransport;
  username: string | null;
  /** Write-only: never answered. Empty on edit keeps the stored secret. */
  password: string;
  callerId: string | null;
  maxConcurrentCalls: number;
  active: boolean;
  /**
   * How the carrier writes called numbers when not in E.164 (issue #22): the country calling code the trunk's
   * numbers belong to ("34", "44") and the national trunk prefix dialled before a national number ("0" in the UK,
   * "8" in Russia; null where there is none, as in Spain). Null country: only E.164 (with or without "+") matches.
   */
  countryCode?: string | null;
  nationalPrefix?: string | null;
  /**
   * Carrier source check (issue #22): the addresses (203.0.113.10) and CIDR networks (203.0.113.0/24, 2001:db8::/32) the
   * carrier's INVITEs for this trunk's numbers may come from; any other source is answered 403. Empty: only the
   * trunk's `host` (its address, or what the name resolves to) is accepted.
   */
  allowedSources?: string[];
}

export interface TrunkSummary extends Omit<TrunkInput, 'password'> {
  id: string;
  hasPassword: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Server-side only (worker/dialer): the trunk with its decrypted secret. Never sent to a browser. */
export interface TrunkDialingConfig {
  id: string;
  name: string;
  host: string;
  port: number;
  transport: TrunkTransport;
  username: string | null;
  password: string | null;
  callerId: string | null;
  maxConcurrentCalls: number;
}

const HOSTNAME = /^(?=.{1,253}$)([a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^(?=.*:)[0-9a-fA-F:.]{2,45}$/;
/** E.164 (+ and up to 15 digits) or plain digits. */
export const CALLER_ID_PATTERN = /^\+?[0-9]{3,15}$/;

/** A hostname, an IPv4 address, or an IPv6 address (optionally in brackets). */
export function isTrunkHost(value: string): boolean {
  const host = value.trim();
  if (IPV4.test(host)) return true;
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.includes(':')) return IPV6.test(bare);
  // All-numeric dotted names that are not valid IPv4 (999.1.1.1) are refused.
  if (/^[0-9.]+$/.test(host)) return false;
  return HOSTNAME.test(host);
}

const str = (value: unknown): string => (typeof value === 'string' ? value.trim() : value == null ? '' : String(value));

function intIssue(field: string, raw: unknown, min: number, max: number, required: boolean): RuleIssue | null {
  if (raw === undefined || raw === null || raw === '') return required ? { field, key: 'required' } : null;
  const value = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isInteger(value)) return { field, key: 'integer' };
  if (value < min || value > max) return { field, key: 'range', values: { min, max } };
  return null;
}

/** IVR main fields: name required (≤ 160), description ≤ 500, language one of the seven (when given). */
export function validateIvr(input: Partial<Record<keyof IvrInput, unknown>>): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const name = str(input.name);
  if (!name) issues.push({ field: 'name', key: 'required' });
  else if (name.length > IVR_LIMITS.nameMax) issues.push({ field: 'name', key: 'maxLength', values: { count: IVR_LIMITS.nameMax } });
  if (str(input.description).length > IVR_LIMITS.descriptionMax)
    issues.push({ field: 'description', key: 'maxLength', values: { count: IVR_LIMITS.descriptionMax } });
  const language = str(input.language);
  if (language && !(LANGUAGES as readonly string[]).includes(language))
    issues.push({ field: 'language', key: 'oneOf', values: { options: LANGUAGES.join(', ') } });
  return issues;
}

/** Trunk fields: host a hostname or IP, port 1..65535, transport udp/tcp/tls/ws/wss, caller id E.164 or digits, calls 1..1000. */
export function validateTrunk(input: Partial<Record<keyof TrunkInput, unknown>>): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const push = (issue: RuleIssue | null) => issue && issues.push(issue);
  const name = str(input.name);
  if (!name) push({ field: 'name', key: 'required' });
  else if (name.length > TRUNK_LIMITS.nameMax) push({ field: 'name', key: 'maxLength', values: { count: TRUNK_LIMITS.nameMax } });
  const host = str(input.host);
  if (!host) push({ field: 'host', key: 'required' });
  else if (host.length > TRUNK_LIMITS.hostMax) push({ field: 'host', key: 'maxLength', values: { count: TRUNK_LIMITS.hostMax } });
  else if (!isTrunkHost(host)) push({ field: 'host', key: 'pattern' });
  push(intIssue('port', input.port, 1, 65535, true));
  const transport = str(input.transport);
  if (!transport) push({ field: 'transport', key: 'required' });
  else if (!(TRUNK_TRANSPORTS as readonly string[]).includes(transport))
    push({ field: 'transport', key: 'oneOf', values: { options: TRUNK_TRANSPORTS.join(', ') } });
  if (str(input.username).length > TRUNK_LIMITS.usernameMax)
    push({ field: 'username', key: 'maxLength', values: { count: TRUNK_LIMITS.usernameMax } });
  if (typeof input.password === 'string' && input.password.length > TRUNK_LIMITS.passwordMax)
    push({ field: 'password', key: 'maxLength', values: { count: TRUNK_LIMITS.passwordMax } });
  const callerId = str(input.callerId);
  if (callerId && !CALLER_ID_PATTERN.test(callerId)) push({ field: 'callerId', key: 'pattern' });
  push(intIssue('maxConcurrentCalls', input.maxConcurrentCalls, 1, TRUNK_LIMITS.maxConcurrentCalls, true));
  const countryCode = str(input.countryCode);
  if (countryCode && !COUNTRY_CODE.test(countryCode)) push({ field: 'countryCode', key: 'pattern' });
  const nationalPrefix = str(input.nationalPrefix);
  if (nationalPrefix && !NATIONAL_PREFIX.test(nationalPrefix)) push({ field: 'nationalPrefix', key: 'pattern' });
  else if (nationalPrefix && !countryCode) push({ field: 'countryCode', key: 'required' });
  if (input.allowedSources !== undefined && input.allowedSources !== null) {
    const sources = parseAllowedSources(input.allowedSources);
    if (!sources) push({ field: 'allowedSources', key: 'pattern' });
    else if (sources.length > TRUNK_LIMITS.allowedSourcesMax)
      push({ field: 'allowedSources', key: 'maxItems', values: { count: TRUNK_LIMITS.allowedSourcesMax } });
    else {
      const bad = sources.find((entry) => !isSourceCidr(entry));
      if (bad !== undefined) push({ field: 'allowedSources', key: 'sourceAddress', values: { value: bad.slice(0, 60) } });
    }
  }
  return issues;
}

/**
 * A trunk's allowed sources as a list: an array of strings, or one text with the entries separated by commas, spaces
 * or new lines (the console's field). Empty entries are dropped; null for anything else (a number, an object).
 */
export function parseAllowedSources(raw: unknown): string[] | null {
  if (typeof raw === 'string') return raw.split(/[\s,;]+/).filter(Boolean);
  if (Array.isArray(raw) && raw.every((entry) => typeof entry === 'string'))
    return (raw as string[]).map((entry) => entry.trim()).filter(Boolean);
  return null;
}

function isIpv6(value: string): boolean {
  let text = value;
  // An embedded IPv4 tail (::ffff:192.0.2.1) counts as two groups.
  const v4 = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    if (!IPV4.test(v4[2]!)) return false;
    text = `${v4[1]}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = halves.map((half) => (half === '' ? [] : half.split(':')));
  if (groups.some((list) => list.some((group) => !/^[0-9a-fA-F]{1,4}$/.test(group)))) return false;
  const count = groups.reduce((sum, list) => sum + list.length, 0);
  return halves.length === 2 ? count <= 7 : count === 8;
}

/** An IPv4 or IPv6 address, optionally with a prefix length (/0–/32, /0–/128): an entry of a trunk's allowed sources. */
export function isSourceCidr(value: string): boolean {
  const match = /^([^/]+?)(?:\/(\d{1,3}))?$/.exec(value.trim());
  if (!match) return false;
  const [, address, prefix] = match;
  const max = IPV4.test(address!) ? 32 : isIpv6(address!) ? 128 : -1;
  if (max < 0) return false;
  return prefix === undefined || (Number(prefix) <= max && !/^0\d/.test(prefix));
}

/** A country calling code without "+" or "00": 1 to 3 digits, never starting with 0 ("1", "34", "381"). */
export const COUNTRY_CODE = /^[1-9][0-9]{0,2}$/;
/** A national trunk prefix: 1 or 2 digits ("0", "8", "06"). */
export const NATIONAL_PREFIX = /^[0-9]{1,2}$/;

/**
 * The E.164 form of a called number a carrier sent in national format, for a trunk whose numbers are in
 * `countryCode` with `nationalPrefix` ("020 7946 0000", country 44, prefix 0 → "+442079460000"; "911234567",
 * country 34, no prefix → "+34911234567"; Italy: country 39, no prefix, "06 1234567" → "+39061234567"). "00" then digits is the international form ("0034911…" → "+34911…").
 * Null for a number written with "+" (already E.164), without the trunk's national prefix when it has one, or that
 * does not come out as E.164.
 */
export function nationalToE164(raw: string, trunk: { countryCode: string | null; nationalPrefix: string | null }): string | null {
  const compact = (raw ?? '').trim().replace(/[\s\-.()]/g, '');
  if (!/^\+?[0-9]+$/.test(compact) || compact.startsWith('+')) return null;
  if (compact.startsWith('00')) return normalizeInboundNumber(`+${compact.slice(2)}`);
  const country = trunk.countryCode?.trim() ?? '';
  if (!COUNTRY_CODE.test(country)) return null;
  const prefix = trunk.nationalPrefix?.trim() ?? '';
  if (prefix && !compact.startsWith(prefix)) return null;
  const national = compact.slice(prefix.length);
  if (!national) return null;
  return normalizeInboundNumber(`+${country}${national}`);
}

// ---------------------------------------------------------------------------------------------
// Inbound numbers (issue #22): the called numbers a trunk answers, each sent to an IVR or a line
// ---------------------------------------------------------------------------------------------

/** E.164 without the "+": country code (never 0) and up to 15 digits in all. */
const E164_DIGITS = /^[1-9][0-9]{6,14}$/;

/**
 * A called number as the platform stores and matches it: "+" and the digits, with spaces, dashes,
 * dots and brackets dropped ("+34 91-123 45 67" → "+34911234567"); null when it is not E.164.
 * A number written without "+" is read as already carrying its country code (SIP carriers send
 * both forms in the Request-URI and To).
 */
export function normalizeInboundNumber(raw: string): string | null {
  const compact = raw.trim().replace(/[\s\-.()]/g, '');
  const digits = compact.startsWith('+') ? compact.slice(1) : compact;
  return E164_DIGITS.test(digits) ? `+${digits}` : null;
}

export const INBOUND_TARGET_TYPES = ['ivr', 'line'] as const;
export type InboundTargetType = (typeof INBOUND_TARGET_TYPES)[number];

export interface InboundNumberInput {
  /** E.164 ("+34911234567"; spaces and dashes are accepted and dropped). */
  number: string;
  /** ivr: the call walks that IVR's published tree; line: it queues in that attention line at once. */
  targetType: InboundTargetType;
  /** IVR id or attention line id of the tenant. */
  targetId: string;
}

export interface InboundNumber {
  id: string;
  trunkId: string;
  number: string;
  ivrId: string | null;
  attentionLineId: string | null;
  /** Name of the IVR or line it is sent to. */
  targetName: string | null;
  createdAt: string;
}

/** Inbound number fields: number E.164, target type ivr or line, target required. */
export function validateInboundNumber(input: Partial<Record<keyof InboundNumberInput, unknown>>): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const number = str(input.number);
  if (!number) issues.push({ field: 'number', key: 'required' });
  else if (!normalizeInboundNumber(number)) issues.push({ field: 'number', key: 'pattern' });
  const targetType = str(input.targetType);
  if (!targetType) issues.push({ field: 'targetType', key: 'required' });
  else if (!(INBOUND_TARGET_TYPES as readonly string[]).includes(targetType))
    issues.push({ field: 'targetType', key: 'oneOf', values: { options: INBOUND_TARGET_TYPES.join(', ') } });
  if (!str(input.targetId)) issues.push({ field: 'targetId', key: 'required' });
  return issues;
}

/** Recorded prompts an administrator may upload (converted to 8 kHz mono 16-bit PCM WAV on the server). */
export const IVR_PROMPT_UPLOAD = {
  maxBytes: 5 * 1024 * 1024,
  extensions: ['wav', 'mp3', 'ogg'] as const,
  /** Longest recording accepted, in seconds. */
  maxSeconds: 120,
} as const;

// ---------------------------------------------------------------------------------------------
// Voice settings of a tenant (issue #22): hold music and queue position announcements
// ---------------------------------------------------------------------------------------------

/** How often a caller waiting in a line's queue hears their position, in seconds (0 = never). */
export const VOICE_QUEUE_ANNOUNCEMENT = { min: 0, max: 600, default: 60 } as const;

export interface VoiceSettings {
  /** The tenant's own hold music (stored 8 kHz mono WAV, uploaded like an IVR recording); null = the built-in music. */
  holdMusicFileId: string | null;
  /** Seconds between "You are number N in the queue" while a caller waits (0 = off). */
  queueAnnouncementSeconds: number;
}

/** Settings fields: the announcement interval a whole number of seconds within VOICE_QUEUE_ANNOUNCEMENT. */
export function validateVoiceSettings(input: Partial<Record<keyof VoiceSettings, unknown>>): RuleIssue[] {
  const issue = intIssue(
    'queueAnnouncementSeconds',
    input.queueAnnouncementSeconds,
    VOICE_QUEUE_ANNOUNCEMENT.min,
    VOICE_QUEUE_ANNOUNCEMENT.max,
    true,
  );
  return issue ? [issue] : [];
}
