import type { ChannelCapabilities } from '../adapter';

const MB = 1024 * 1024;

/**
 * What the WhatsApp Cloud API accepts, from Meta's "Supported media types" and message reference:
 * text bodies up to 4096 characters; images JPEG/PNG up to 5 MB; documents up to 100 MB; audio
 * AAC/MP4/MPEG(MP3)/AMR/OGG(Opus) and video MP4/3GPP up to 16 MB. Meta reports sent, delivered and
 * read; free text only within 24 h of the customer's last message, approved templates at any time.
 */
/** Interactive reply buttons: at most 3 in a message, titles of at most 20 characters, ids of 256. */
export const WHATSAPP_REPLY_BUTTONS_MAX = 3;
export const WHATSAPP_BUTTON_TITLE_MAX = 20;
/** Interactive list: at most 10 rows in all, row ids of at most 200 characters; its body up to 4096 (a button message's 1024). */
export const WHATSAPP_LIST_ROWS_MAX = 10;
export const WHATSAPP_LIST_ROW_ID_MAX = 200;
export const WHATSAPP_BUTTON_BODY_MAX = 1024;
/** The list's own button (opens the rows): a label every language reads. */
export const WHATSAPP_LIST_BUTTON_LABEL = '☰';

export const WHATSAPP_CAPABILITIES: ChannelCapabilities = {
  textLimit: 4096,
  attachments: {
    image: { maxBytes: 5 * MB, mimeTypes: ['image/jpeg', 'image/png'] },
    document: {
      maxBytes: 100 * MB,
      mimeTypes: [
        'application/pdf',
        'text/plain',
        'application/msword',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        'application/vnd.ms-excel',
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        'application/vnd.ms-powerpoint',
        'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      ],
    },
    audio: { maxBytes: 16 * MB, mimeTypes: ['audio/aac', 'audio/mp4', 'audio/mpeg', 'audio/amr', 'audio/ogg'] },
    video: { maxBytes: 16 * MB, mimeTypes: ['video/mp4', 'video/3gpp'] },
  },
  receipts: { delivered: true, read: true },
  // The Cloud API reports no customer typing, so the desk has nothing to show.
  typing: false,
  markRead: true,
  replyWindowHours: 24,
  humanAgentTagHours: null,
  templates: true,
  // Interactive messages: up to 3 reply buttons (title ≤ 20, id ≤ 256), more as a list (≤ 10 rows,
  // row title ≤ 24, row id ≤ 200); the platform keeps every label at 20 so either form fits.
  buttons: { max: WHATSAPP_LIST_ROWS_MAX, titleMax: WHATSAPP_BUTTON_TITLE_MAX, payloadMaxBytes: WHATSAPP_LIST_ROW_ID_MAX },
};
