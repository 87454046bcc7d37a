import type { AttachmentKind } from '@centralita/contracts';

/**
 * What a file's bytes are, by their magic numbers: the declared type (the browser's, the
 * provider's) must be one of the types those bytes may be declared as, so a script renamed
 * photo.png or an HTML page sent as image/jpeg is refused. Only the types below are accepted at
 * all; executables, HTML and SVG (which carries script) have no entry and are refused.
 */
interface ContentType {
  /** What the bytes are, for the error message. */
  name: string;
  matches: (bytes: Buffer) => boolean;
  /** The declared types these bytes may come as, each with the kind the desk shows it as. */
  declared: Record<string, AttachmentKind>;
}

const ascii = (bytes: Buffer, offset: number, text: string) => bytes.subarray(offset, offset + text.length).toString('latin1') === text;
const startsWith = (bytes: Buffer, ...values: number[]) => values.every((value, i) => bytes[i] === value);

const OOXML = {
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'document',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'document',
} as const;

const CONTENT_TYPES: ContentType[] = [
  { name: 'PNG image', matches: (b) => startsWith(b, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), declared: { 'image/png': 'image' } },
  { name: 'JPEG image', matches: (b) => startsWith(b, 0xff, 0xd8, 0xff), declared: { 'image/jpeg': 'image', 'image/jpg': 'image' } },
  { name: 'GIF image', matches: (b) => ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a'), declared: { 'image/gif': 'image' } },
  { name: 'WebP image', matches: (b) => ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP'), declared: { 'image/webp': 'image' } },
  { name: 'PDF document', matches: (b) => ascii(b, 0, '%PDF-'), declared: { 'application/pdf': 'document' } },
  {
    name: 'Ogg audio',
    matches: (b) => ascii(b, 0, 'OggS'),
    declared: { 'audio/ogg': 'audio', 'audio/opus': 'audio', 'application/ogg': 'audio', 'video/ogg': 'video' },
  },
  {
    name: 'MP3 audio',
    // An ID3 tag, or straight into an MPEG audio frame (11 sync bits).
    matches: (b) => ascii(b, 0, 'ID3') || (b.length > 1 && b[0] === 0xff && (b[1]! & 0xe0) === 0xe0),
    declared: { 'audio/mpeg': 'audio', 'audio/mp3': 'audio' },
  },
  {
    name: 'MP4 media',
    matches: (b) => ascii(b, 4, 'ftyp'),
    declared: {
      'video/mp4': 'video',
      'video/3gpp': 'video',
      'video/quicktime': 'video',
      'audio/mp4': 'audio',
      'audio/m4a': 'audio',
      'audio/x-m4a': 'audio',
      'audio/aac': 'audio',
    },
  },
  { name: 'WebM media', matches: (b) => startsWith(b, 0x1a, 0x45, 0xdf, 0xa3), declared: { 'video/webm': 'video', 'audio/webm': 'audio' } },
  {
    name: 'Office document',
    // A ZIP whose first entry is the OOXML content-types part (any other ZIP is refused).
    matches: (b) => startsWith(b, 0x50, 0x4b, 0x03, 0x04) && b.subarray(30, 30 + 64).includes('[Content_Types].xml'),
    declared: OOXML,
  },
  {
    name: 'legacy Office document',
    matches: (b) => startsWith(b, 0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1),
    declared: { 'application/msword': 'document', 'application/vnd.ms-excel': 'document', 'application/vnd.ms-powerpoint': 'document' },
  },
];

/** Every declared type accepted, for messages and the API documentation. */
export const ACCEPTED_TYPES: readonly string[] = CONTENT_TYPES.flatMap((type) => Object.keys(type.declared));

export type ContentCheck = { ok: true; mimeType: string; kind: AttachmentKind } | { ok: false; problem: string };

/** Whether `bytes` are what `declaredType` says (parameters such as `; codecs=opus` are ignored). */
export function checkContent(bytes: Buffer, declaredType: string): ContentCheck {
  const mimeType = declaredType.split(';')[0]!.trim().toLowerCase();
  const actual = CONTENT_TYPES.find((type) => type.matches(bytes));
  if (!actual) return { ok: false, problem: `The file's content is not an accepted type (accepted: ${ACCEPTED_TYPES.join(', ')})` };
  const kind = actual.declared[mimeType];
  if (!kind) return { ok: false, problem: `The file is declared as ${mimeType || 'nothing'} but its content is a ${actual.name}` };
  return { ok: true, mimeType, kind };
}

/** A safe file name: no path, no control or quoting characters, at most 255 characters keeping the extension. */
export function sanitiseFileName(raw: string, fallback: string): string {
  const base = raw.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}"<>:*?|]/gu, '_')
    .replace(/\s+/g, ' ')
    .replace(/^[\s.]+|[\s.]+$/g, '');
  const characters = Array.from(cleaned);
  if (characters.length === 0) return fallback;
  if (characters.length <= 255) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const extension = dot > 0 && cleaned.length - dot <= 16 ? cleaned.slice(dot) : '';
  return (
    Array.from(cleaned.slice(0, cleaned.length - extension.length))
      .slice(0, 255 - extension.length)
      .join('') + extension
  );
}

/** Served inline only what the desk shows itself (images, audio and video players); everything else downloads. */
export function dispositionFor(kind: AttachmentKind, fileName: string): string {
  const type = kind === 'document' ? 'attachment' : 'inline';
  const asciiName = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${type}; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** Largest attachment the platform takes (ATTACHMENT_MAX_BYTES, default 16 MB); a channel may take less. */
export function attachmentMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.ATTACHMENT_MAX_BYTES);
  return Number.isInteger(value) && value > 0 ? value : 16 * 1024 * 1024;
}
