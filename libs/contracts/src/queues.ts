/**
 * The queue registry: every BullMQ queue of the platform, its name on the wire and the jobs it
 * carries. This map is the only place a queue is named; producers (`Queue<…>`), consumers
 * (`@Processor`, `Worker`) and outbox rows (kind `job`) are typed from it.
 * Renaming a queue strands the jobs already in Redis under the old name: the strings stay as they are.
 */
import type { SentimentJob } from './dashboards';
import type { PhoneListImportJob } from './admin';
import type { OutboundCallEventJob } from './outbound';
import type { ReportExportJob } from './reports';
import type { GeoImportJob } from './cases';
import type { VideoRecordingJob } from './video';
import type { VoiceCallEvent, VoiceCommand } from './voice';

export const QUEUES = {
  /** API → worker: one mail to send (or, in development, keep in the dev mailbox). */
  mail: 'mail',
  /** API → worker: one spreadsheet import; job id = import id. */
  phoneListImport: 'phone-list-import',
  /** API → worker: one report export; job id = export id. */
  reportExport: 'report-export',
  /** API (through the outbox) → worker: score one stored customer message; job id `sentiment.<messageId>`. */
  sentiment: 'message-sentiment',
  /** API → API: delayed machine timer events (queue timeout, inactivity, survey expiry, after-call work, disconnect grace). */
  machineTimers: 'machine-timers',
  /** API → API: routing requests written as outbox effects; job id = outbox id. */
  routing: 'routing-requests',
  /** Worker → API: call created / carrier events and outbound timers; one at a time so a call's events keep their order. */
  outboundCallEvents: 'outbound-call-events',
  /** Worker → worker: one repeatable tick that paces every running campaign. */
  dialerTicks: 'dialer-ticks',
  /** API (through the outbox) → API: process one stored raw channel webhook event; job id `channel-event.<eventId>`. */
  channelInbound: 'channel-inbound',
  /** API (through the outbox) → worker: send one agent message through its channel adapter; job id `channel-send.<messageId>`. */
  channelSend: 'channel-send',
  /** API → worker: one spreadsheet of provinces, cantons and districts (cases); job id = import id. */
  geoImport: 'geo-import',
  /** API (through the outbox) → worker: join one video recording's chunks into its file; job id `video-recording.<recordingId>`. */
  videoRecording: 'video-recording',
  /** API (through the outbox) → worker: run one message campaign's sends until done, paused or stopped; job id `message-campaign.<campaignId>`. */
  messageCampaigns: 'message-campaigns',
  /** Worker → API: one inbound call's events (voice.ts), in order; job id `voice.<callId>.<seq>`. */
  voiceCallEvents: 'voice-call-events',
  /** API → worker: connect or hang up a live inbound call (voice.ts). */
  voiceCommands: 'voice-commands',
} as const;
export type QueueKey = keyof typeof QUEUES;
export type QueueName = (typeof QUEUES)[QueueKey];
export const QUEUE_NAMES: readonly QueueName[] = Object.values(QUEUES);

/** A machine timer: the event the machine gets back when it fires (a stale `armedAt` is refused). */
export interface MachineTimerJob {
  entity: 'conversation' | 'agent';
  id: string;
  event: { type: string };
}

/** A routing request: route a line, an agent's room, or put conversations back in their lines. */
export type RoutingRequest =
  | { name: 'line'; data: { tenantId: string; attentionLineId: string } }
  | { name: 'agent'; data: { tenantId: string; agentId: string } }
  | { name: 'requeue'; data: { tenantId: string; conversationIds: string[] } };

/**
 * The jobs of each queue, by queue name: the job name and its data. A consumer reads `data` as
 * `QueuePayloads[Q]`; a producer (or an outbox row) can only put there what this map allows.
 */
export interface QueueJobs {
  [QUEUES.mail]: { name: 'send'; data: MailJob };
  [QUEUES.phoneListImport]: { name: 'import'; data: PhoneListImportJob };
  [QUEUES.reportExport]: { name: 'export'; data: ReportExportJob };
  [QUEUES.sentiment]: { name: 'score'; data: SentimentJob };
  /** Named after the event's type. */
  [QUEUES.machineTimers]: { name: string; data: MachineTimerJob };
  [QUEUES.routing]: RoutingRequest;
  /** Named after the job's kind. */
  [QUEUES.outboundCallEvents]: { name: OutboundCallEventJob['kind']; data: OutboundCallEventJob };
  [QUEUES.dialerTicks]: { name: 'tick'; data: Record<string, never> };
  [QUEUES.channelInbound]: { name: 'process'; data: ChannelInboundJob };
  [QUEUES.channelSend]: { name: 'send'; data: ChannelSendJob };
  [QUEUES.geoImport]: { name: 'import'; data: GeoImportJob };
  [QUEUES.videoRecording]: { name: 'finalise'; data: VideoRecordingJob };
  [QUEUES.messageCampaigns]: { name: 'run'; data: MessageCampaignJob };
  /** Named after the event's type. */
  [QUEUES.voiceCallEvents]: { name: VoiceCallEvent['type']; data: VoiceCallEvent };
  /** Named after the command's type. */
  [QUEUES.voiceCommands]: { name: VoiceCommand['type']; data: VoiceCommand };
}

/** One message campaign to run (its recipients' states live in PostgreSQL; the job only drives them). */
export interface MessageCampaignJob {
  tenantId: string;
  campaignId: string;
}

/** One raw webhook body stored in channel_events, to parse and take in. */
export interface ChannelInboundJob {
  tenantId: string;
  eventId: string;
}

/** One agent message (messages.id, delivery status `pending`) to send through its conversation's channel account. */
export interface ChannelSendJob {
  tenantId: string;
  messageId: string;
}
export type QueueJob<Q extends QueueName> = QueueJobs[Q];
export type QueuePayloads = { [Q in QueueName]: QueueJobs[Q]['data'] };

/** Whether `name` is one of the platform's queues (outbox rows are read back as JSON). */
export function isQueueName(name: unknown): name is QueueName {
  return typeof name === 'string' && (QUEUE_NAMES as readonly string[]).includes(name);
}

/**
 * A job for queue `queue`, checked against the registry at compile time: what an outbox row of
 * kind `job` carries (see OutboxJob). `jobId` makes delivery idempotent: a second delivery of the
 * same row finds the id taken and enqueues nothing.
 */
export type OutboxJob<Q extends QueueName = QueueName> = Q extends QueueName
  ? { queue: Q; jobId?: string; delayMs?: number } & QueueJobs[Q]
  : never;

export function outboxJob<Q extends QueueName>(
  queue: Q,
  job: QueueJobs[Q],
  options: { jobId?: string; delayMs?: number } = {},
): OutboxJob<Q> {
  return { queue, ...job, ...options } as OutboxJob<Q>;
}

export interface MailJob {
  to: string;
  /** i18n-free: the API renders subject and bodies in the recipient's language before enqueueing. */
  subject: string;
  text: string;
  html?: string;
  /**
   * The organisation the mail concerns (the recipient's tenant, or the tenant being created). The
   * dev mailbox shows a mail only to administrators of that organisation; without it, only when
   * the recipient is a user of the caller's organisation.
   */
  clientId?: string | null;
}

/**
 * Without SMTP_URL and with DEV_MAILBOX=on (never in production) the worker keeps the newest mails
 * in this Redis list, under the queue prefix, and the API shows them at GET /api/dev/mailbox to
 * administrators (users.manage), each only the mail of their own organisation.
 */
export const DEV_MAILBOX = { suffix: 'dev-mailbox', limit: 50 } as const;
export function devMailboxKey(prefix: string): string {
  return `${prefix}:${DEV_MAILBOX.suffix}`;
}
export interface DevMailboxEntry extends MailJob {
  from: string;
  /** ISO-8601 time the worker handled the job. */
  at: string;
}
