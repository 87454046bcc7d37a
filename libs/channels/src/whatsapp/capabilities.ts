import type { ChannelCapabilities } from '../adapter';

const MB = 1024 * 1024;

/**
 * What the WhatsApp Cloud API accepts, from Meta's "Supported media types" and message reference:
 * text bodies up to 4096 characters; images JPEG/PNG up to 5 MB; documents up to 100 MB; audio
 * AAC/MP4/MPEG(MP3)/AMR/OGG(Opus) and video MP4/3GPP up to 16 MB. Meta reports sent, delivered and
 * read; free text only within 24 h of the customer's last message, approved templates at any time.
 */
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
};
