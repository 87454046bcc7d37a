import type { ButtonCapability, ChannelCapabilities } from '../adapter';

const MB = 1024 * 1024;

/** Quick replies (Messenger and Instagram alike): at most 13 a message, titles of 20 characters, payloads of 1000. */
export const META_QUICK_REPLIES: ButtonCapability = { max: 13, titleMax: 20, payloadMaxBytes: 1000 };

/**
 * Facebook Messenger, from the Send API reference: text up to 2,000 characters; attachments up to
 * 25 MB, images up to 8 MB (as the Attachment Upload API documents for both Messenger and
 * Instagram). Meta reports deliveries (message_deliveries) and reads by watermark (message_reads).
 * Free text within 24 hours of the customer's last message; the HUMAN_AGENT tag extends that to
 * 7 days for a human's reply. No templates: Messenger's "message templates" are structured
 * layouts, not provider-approved texts.
 */
export const MESSENGER_CAPABILITIES: ChannelCapabilities = {
  textLimit: 2000,
  attachments: {
    image: { maxBytes: 8 * MB, mimeTypes: ['image/jpeg', 'image/png', 'image/gif'] },
    audio: {
      maxBytes: 25 * MB,
      mimeTypes: ['audio/mpeg', 'audio/mp4', 'audio/aac', 'audio/x-m4a', 'audio/wav', 'audio/x-wav', 'audio/ogg'],
    },
    video: { maxBytes: 25 * MB, mimeTypes: ['video/mp4', 'video/quicktime', 'video/webm', 'video/ogg'] },
    document: {
      maxBytes: 25 * MB,
      mimeTypes: [
        'application/pdf',
        'text/plain',
        'text/csv',
        'application/zip',
        'application/msword',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        'application/vnd.ms-excel',
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        'application/vnd.ms-powerpoint',
        'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      ],
    },
  },
  receipts: { delivered: true, read: true },
  typing: false,
  markRead: true,
  replyWindowHours: 24,
  humanAgentTagHours: 168,
  templates: false,
  // Quick replies: up to 13 above the composer, titles of 20 characters, payloads of 1000.
  buttons: META_QUICK_REPLIES,
};

/**
 * Instagram messaging, from "Send a Message" and "Upload Media for Instagram Messaging": text under
 * 1,000 characters; images png/jpeg/gif up to 8 MB; audio aac/m4a/wav/mp4 and video
 * mp4/ogg/avi/mov/webm up to 25 MB; files (pdf) up to 25 MB. Instagram has no delivery webhook,
 * only `messaging_seen` (read, per message).
 */
export const INSTAGRAM_CAPABILITIES: ChannelCapabilities = {
  textLimit: 1000,
  attachments: {
    image: { maxBytes: 8 * MB, mimeTypes: ['image/jpeg', 'image/png', 'image/gif'] },
    audio: { maxBytes: 25 * MB, mimeTypes: ['audio/aac', 'audio/mp4', 'audio/x-m4a', 'audio/wav', 'audio/x-wav'] },
    video: { maxBytes: 25 * MB, mimeTypes: ['video/mp4', 'video/ogg', 'video/x-msvideo', 'video/quicktime', 'video/webm'] },
    document: { maxBytes: 25 * MB, mimeTypes: ['application/pdf'] },
  },
  receipts: { delivered: false, read: true },
  typing: false,
  markRead: true,
  replyWindowHours: 24,
  humanAgentTagHours: 168,
  templates: false,
  // Quick replies: up to 13 above the composer, titles of 20 characters, payloads of 1000.
  buttons: META_QUICK_REPLIES,
};
