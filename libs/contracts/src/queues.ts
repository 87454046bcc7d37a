/**
 * BullMQ queue names and job payloads shared by the API (producer) and the worker (consumer).
 * Renaming a queue strands the jobs already in Redis under the old name: it needs a migration.
 */
export const QUEUES = {
  mail: 'mail',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

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
