import type { ChannelCapabilities } from '../adapter';

const MB = 1024 * 1024;

/** sendPhoto refuses uploads over 10 MB; every other upload method stops at 50 MB (Bot API, "Sending files"). */
export const TELEGRAM_PHOTO_MAX_BYTES = 10 * MB;
export const TELEGRAM_FILE_MAX_BYTES = 50 * MB;
/** getFile only prepares files of up to 20 MB for download by a bot: larger customer media cannot be fetched. */
export const TELEGRAM_DOWNLOAD_MAX_BYTES = 20 * MB;
export const TELEGRAM_TEXT_LIMIT = 4096;
export const TELEGRAM_CAPTION_LIMIT = 1024;
/** InlineKeyboardButton.callback_data: 1-64 bytes (Bot API). */
export const TELEGRAM_CALLBACK_DATA_MAX_BYTES = 64;
/** The Bot API sets no label limit; apps cut long labels on one line, so the platform keeps them short. */
export const TELEGRAM_BUTTON_TITLE_MAX = 40;
/** Rows of an inline keyboard the platform sends (one button a row); Telegram allows up to 100 buttons. */
export const TELEGRAM_BUTTONS_MAX = 12;

/** Formats sendPhoto shows as a photo (GIF would be an animation, anything else a document). */
export const TELEGRAM_PHOTO_MIME_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
/** sendAudio plays MP3 and M4A in the music player; OGG/Opus goes out with sendVoice as a voice note. */
export const TELEGRAM_AUDIO_MIME_TYPES = ['audio/mpeg', 'audio/mp4', 'audio/x-m4a', 'audio/ogg'] as const;
/** sendVideo streams MPEG-4; other video formats would arrive as a plain document. */
export const TELEGRAM_VIDEO_MIME_TYPES = ['video/mp4'] as const;
/** sendDocument takes any file; these are the ones a contact centre sends. */
export const TELEGRAM_DOCUMENT_MIME_TYPES = [
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
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
] as const;

export const TELEGRAM_CAPABILITIES: ChannelCapabilities = {
  textLimit: TELEGRAM_TEXT_LIMIT,
  attachments: {
    image: { maxBytes: TELEGRAM_PHOTO_MAX_BYTES, mimeTypes: TELEGRAM_PHOTO_MIME_TYPES },
    document: { maxBytes: TELEGRAM_FILE_MAX_BYTES, mimeTypes: TELEGRAM_DOCUMENT_MIME_TYPES },
    audio: { maxBytes: TELEGRAM_FILE_MAX_BYTES, mimeTypes: TELEGRAM_AUDIO_MIME_TYPES },
    video: { maxBytes: TELEGRAM_FILE_MAX_BYTES, mimeTypes: TELEGRAM_VIDEO_MIME_TYPES },
  },
  // Bots get neither delivery nor read receipts, and cannot mark a customer's message read.
  receipts: { delivered: false, read: false },
  // sendChatAction shows "typing…" to the customer (the adapter's sendTyping).
  typing: true,
  markRead: false,
  // A bot may write to a user who started it at any time, until the user blocks it.
  replyWindowHours: null,
  humanAgentTagHours: null,
  templates: false,
  // An inline keyboard under the text, one button a row; a tap is a callback_query (callback_data 1-64 bytes).
  buttons: { max: TELEGRAM_BUTTONS_MAX, titleMax: TELEGRAM_BUTTON_TITLE_MAX, payloadMaxBytes: TELEGRAM_CALLBACK_DATA_MAX_BYTES },
};
