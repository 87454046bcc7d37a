import type { AttachmentKind, AttachmentView, ChannelKindView } from '@centralita/contracts';
import { channelIdentity } from './channels';

/** What a conversation's channel accepts per attachment kind (ChannelKindView.attachments). */
export type AttachmentRules = ChannelKindView['attachments'];

const MB = 1024 * 1024;
const OFFICE_TYPES = [
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.ms-powerpoint',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
];

/**
 * Web chat has no provider limits: the platform's own (the API's ATTACHMENT_MAX_BYTES default of
 * 16 MB, and the types its content check recognises by their bytes). SVG is never offered: it can
 * carry script.
 */
export const WEBCHAT_ATTACHMENT_RULES: AttachmentRules = {
  image: { maxBytes: 16 * MB, mimeTypes: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] },
  document: { maxBytes: 16 * MB, mimeTypes: ['application/pdf', ...OFFICE_TYPES] },
  audio: { maxBytes: 16 * MB, mimeTypes: ['audio/ogg', 'audio/mpeg'] },
  video: { maxBytes: 16 * MB, mimeTypes: ['video/mp4', 'video/webm'] },
};

/**
 * The rules of a conversation's channel: the platform's for web chat, the provider's for a
 * messaging channel (GET /api/channel-kinds); null while those are unknown (not loaded, or a
 * channel that takes no attachments), so the composer offers nothing it cannot promise.
 */
export function attachmentRulesFor(channel: string, kinds: readonly ChannelKindView[] | null): AttachmentRules | null {
  const key = channelIdentity(channel).key;
  if (key === 'webchat') return WEBCHAT_ATTACHMENT_RULES;
  const found = kinds?.find((kind) => kind.kind === key);
  if (!found || Object.keys(found.attachments).length === 0) return null;
  return found.attachments;
}

/** Browsers leave File.type empty for names they do not know: the types we accept, by extension. */
const TYPE_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

/** The file's media type: the browser's, else guessed from its extension, lower case without parameters. */
export function mimeTypeOf(file: { name: string; type: string }): string {
  const declared = file.type.split(';')[0].trim().toLowerCase();
  if (declared) return declared;
  const extension = /\.([a-z0-9]+)$/i.exec(file.name)?.[1]?.toLowerCase() ?? '';
  return TYPE_BY_EXTENSION[extension] ?? '';
}

export function attachmentKindOf(mimeType: string): AttachmentKind {
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType.startsWith('audio/')) return 'audio';
  if (mimeType.startsWith('video/')) return 'video';
  return 'document';
}

export type FileCheck =
  | { ok: true; kind: AttachmentKind; mimeType: string }
  | { ok: false; problem: 'empty' }
  | { ok: false; problem: 'type'; mimeType: string }
  | { ok: false; problem: 'size'; maxBytes: number };

/**
 * Checks a chosen file before any byte is uploaded: a type the channel takes, within its size
 * limit for that kind. The server checks again (by the bytes, not the name); this spares the user
 * a long upload that would be refused.
 */
export function checkFile(file: { name: string; size: number; type: string }, rules: AttachmentRules): FileCheck {
  if (file.size <= 0) return { ok: false, problem: 'empty' };
  const mimeType = mimeTypeOf(file);
  const kind = attachmentKindOf(mimeType);
  const rule = rules[kind];
  if (!mimeType || !rule || !rule.mimeTypes.includes(mimeType)) return { ok: false, problem: 'type', mimeType };
  if (file.size > rule.maxBytes) return { ok: false, problem: 'size', maxBytes: rule.maxBytes };
  return { ok: true, kind, mimeType };
}

/** The file input's `accept`: every type the rules take. */
export function acceptAttribute(rules: AttachmentRules): string {
  return Object.values(rules)
    .flatMap((rule) => rule?.mimeTypes ?? [])
    .join(',');
}

/** "850 B", "12.5 KB", "3.2 MB": sizes on chips and in limits, with the language's decimal mark. */
export function formatBytes(bytes: number, locale = 'en'): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: digits }).format(value)} ${units[unit]}`;
}

/** Raster formats a browser decodes as pictures only (never SVG, which is a document that can run script). */
const INLINE_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/**
 * How an attachment is shown: a thumbnail for safe raster images, a player for audio and video,
 * and a download chip for everything else (documents are never opened in the page).
 */
export function attachmentDisplay(attachment: Pick<AttachmentView, 'mimeType'>): 'image' | 'audio' | 'video' | 'file' {
  const type = attachment.mimeType.split(';')[0].trim().toLowerCase();
  if (INLINE_IMAGE_TYPES.includes(type)) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  return 'file';
}
