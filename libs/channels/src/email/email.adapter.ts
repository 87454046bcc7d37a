import {
  ChannelError,
  WebhookPayloadError,
  type ChannelAccount,
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelEndpoints,
} from '../adapter';
import { EMAIL_ADDRESS, EMAIL_SECRETS, EMAIL_SETTINGS, emailSettingsOf, emailSettingsProblems } from './settings';
import { connectImap, emailNetworkFromEnv, imapError, verifySmtp, type EmailNetwork } from './transport';

const MB = 1024 * 1024;

/** What mail servers commonly take per message; the composer shows it before upload. */
export const EMAIL_ATTACHMENT_MAX_BYTES = 20 * MB;

export const EMAIL_CAPABILITIES: ChannelCapabilities = {
  // The desk's plain composer writes a conversation message; the email composer's HTML has no such limit.
  textLimit: 500,
  attachments: {
    image: { maxBytes: EMAIL_ATTACHMENT_MAX_BYTES, mimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] },
    document: {
      maxBytes: EMAIL_ATTACHMENT_MAX_BYTES,
      mimeTypes: [
        'application/pdf',
        'text/plain',
        'text/csv',
        'application/zip',
        'application/msword',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        'application/vnd.ms-excel',
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        'application/vnd.oasis.opendocument.text',
        'application/vnd.oasis.opendocument.spreadsheet',
      ],
    },
    audio: { maxBytes: EMAIL_ATTACHMENT_MAX_BYTES, mimeTypes: ['audio/mpeg', 'audio/ogg', 'audio/mp4', 'audio/wav'] },
    video: { maxBytes: EMAIL_ATTACHMENT_MAX_BYTES, mimeTypes: ['video/mp4', 'video/webm'] },
  },
  // SMTP reports nothing after the 250; read receipts are a courtesy clients ignore.
  receipts: { delivered: false, read: false },
  typing: false,
  markRead: false,
  replyWindowHours: null,
  humanAgentTagHours: null,
  templates: false,
};

/**
 * Email over IMAP (in) and SMTP (out). Not a webhook channel: the worker's mailbox reader
 * (apps/worker/src/email) stores each mail as a channel event, and the API's inbound processor
 * takes it in with parseEmail; the worker sends replies with sendSmtp and the threading headers
 * (apps/worker/src/email/email-send.ts). This adapter gives the registry what is common to every
 * channel: the credential form, capabilities, the settings check and the connection test.
 */
export interface EmailAdapter extends ChannelAdapter {
  readonly network: EmailNetwork;
}

export function createEmailAdapter(_endpoints: ChannelEndpoints, network: EmailNetwork = emailNetworkFromEnv()): EmailAdapter {
  const notAWebhook = 'email accounts have no webhook: the worker reads the mailbox';
  return {
    kind: 'email',
    capabilities: EMAIL_CAPABILITIES,
    credentials: { secrets: EMAIL_SECRETS, settings: EMAIL_SETTINGS },
    inbound: 'mailbox',
    network,

    verifyWebhook: () => ({ kind: 'refused', reason: notAWebhook }),
    parseWebhook() {
      throw new WebhookPayloadError(notAWebhook);
    },
    deliveryId: () => null,

    async send() {
      throw new ChannelError('email is sent by the worker’s email sender, with its threading headers', {
        code: 'unsupported',
        retryable: false,
      });
    },
    async markRead() {
      // Nothing to tell the customer: capabilities.markRead is false.
    },
    async fetchMedia() {
      throw new ChannelError('email attachments arrive inside the message', { code: 'unsupported', retryable: false });
    },

    settingsProblem(settings, externalAccountId) {
      const problem = emailSettingsProblems(settings)[0];
      if (problem) return { field: `settings.${problem.field}`, message: problem.message };
      if (!EMAIL_ADDRESS.test(externalAccountId.trim())) {
        return { field: 'externalAccountId', message: 'externalAccountId must be the mailbox address (name@domain)' };
      }
      return null;
    },

    async testConnection(account: ChannelAccount) {
      const settings = emailSettingsOf(account);
      const imap = await connectImap(settings.imap, network);
      try {
        const status = await imap.status(settings.imap.folder, { messages: true }).catch((error: unknown) => {
          throw imapError(error);
        });
        if (!status) throw new ChannelError(`the mailbox has no folder ${settings.imap.folder}`, { code: 'no_folder', retryable: false });
      } finally {
        await imap.logout().catch(() => imap.close());
      }
      await verifySmtp(settings.smtp, network);
      return { name: settings.from.name ? `${settings.from.name} <${settings.from.address}>` : settings.from.address };
    },
  };
}
