import { describe, expect, it } from '@jest/globals';
import type { ChannelKindView } from '@centralita/contracts';
import {
  acceptAttribute,
  attachmentDisplay,
  attachmentRulesFor,
  checkFile,
  formatBytes,
  mimeTypeOf,
  WEBCHAT_ATTACHMENT_RULES,
} from './attachments';

const MB = 1024 * 1024;
const whatsapp: ChannelKindView = {
  kind: 'whatsapp',
  secrets: [],
  settings: [],
  textLimit: 4096,
  replyWindowHours: 24,
  humanAgentTagHours: null,
  templates: true,
  attachments: {
    image: { maxBytes: 5 * MB, mimeTypes: ['image/jpeg', 'image/png'] },
    document: { maxBytes: 100 * MB, mimeTypes: ['application/pdf'] },
  },
  enabled: true,
  registersWebhook: false,
};

describe('attachment rules', () => {
  it("uses the platform's rules for web chat and the provider's for a messaging channel", () => {
    expect(attachmentRulesFor('webchat', null)).toBe(WEBCHAT_ATTACHMENT_RULES);
    expect(attachmentRulesFor('WhatsApp', [whatsapp])).toBe(whatsapp.attachments);
    // Not loaded yet, or a channel that takes no files: nothing is offered.
    expect(attachmentRulesFor('whatsapp', null)).toBeNull();
    expect(attachmentRulesFor('telegram', [whatsapp])).toBeNull();
  });

  it('offers every accepted type in the file picker', () => {
    expect(acceptAttribute(whatsapp.attachments)).toBe('image/jpeg,image/png,application/pdf');
  });
});

describe('file checks before upload', () => {
  it('accepts a file of an allowed type within the limit, naming its kind', () => {
    expect(checkFile({ name: 'photo.png', size: 2 * MB, type: 'image/png' }, whatsapp.attachments)).toEqual({
      ok: true,
      kind: 'image',
      mimeType: 'image/png',
    });
  });

  it('refuses a type the channel does not take, and SVG on web chat', () => {
    expect(checkFile({ name: 'a.gif', size: 10, type: 'image/gif' }, whatsapp.attachments)).toEqual({
      ok: false,
      problem: 'type',
      mimeType: 'image/gif',
    });
    expect(checkFile({ name: 'x.svg', size: 10, type: 'image/svg+xml' }, WEBCHAT_ATTACHMENT_RULES)).toMatchObject({
      ok: false,
      problem: 'type',
    });
    expect(checkFile({ name: 'run.exe', size: 10, type: 'application/x-msdownload' }, WEBCHAT_ATTACHMENT_RULES)).toMatchObject({
      ok: false,
      problem: 'type',
    });
  });

  it("refuses a file over the kind's limit, and an empty file", () => {
    expect(checkFile({ name: 'big.jpg', size: 5 * MB + 1, type: 'image/jpeg' }, whatsapp.attachments)).toEqual({
      ok: false,
      problem: 'size',
      maxBytes: 5 * MB,
    });
    expect(checkFile({ name: 'big.pdf', size: 5 * MB + 1, type: 'application/pdf' }, whatsapp.attachments)).toMatchObject({ ok: true });
    expect(checkFile({ name: 'empty.pdf', size: 0, type: 'application/pdf' }, whatsapp.attachments)).toEqual({
      ok: false,
      problem: 'empty',
    });
  });

  it('guesses the type from the extension when the browser gives none', () => {
    expect(mimeTypeOf({ name: 'Voice Note.OPUS', type: '' })).toBe('audio/ogg');
    expect(mimeTypeOf({ name: 'notes', type: '' })).toBe('');
    expect(mimeTypeOf({ name: 'a.txt', type: 'Image/JPEG; charset=x' })).toBe('image/jpeg');
  });
});

describe('attachment display', () => {
  it('shows raster images and media inline, everything else (SVG too) as a download', () => {
    expect(attachmentDisplay({ mimeType: 'image/webp' })).toBe('image');
    expect(attachmentDisplay({ mimeType: 'image/svg+xml' })).toBe('file');
    expect(attachmentDisplay({ mimeType: 'audio/ogg; codecs=opus' })).toBe('audio');
    expect(attachmentDisplay({ mimeType: 'video/mp4' })).toBe('video');
    expect(attachmentDisplay({ mimeType: 'text/html' })).toBe('file');
  });

  it('formats sizes with the language decimal mark', () => {
    expect(formatBytes(850)).toBe('850 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(3.25 * MB, 'es')).toBe('3,3 MB');
    expect(formatBytes(150 * MB)).toBe('150 MB');
  });
});
