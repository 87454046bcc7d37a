import { describe, expect, it } from '@jest/globals';
import type { ReplyWindowView } from '@centralita/contracts';
import { allowsFreeText, hasReplyWindow, msUntilChange, replyWindowState, windowTime } from './reply-window';

const NOW = new Date(2026, 4, 10, 15, 30, 0).getTime();
const at = (hours: number, minutes = 0, day = 10) => new Date(2026, 4, day, hours, minutes, 0).toISOString();
const view = (overrides: Partial<ReplyWindowView> = {}): ReplyWindowView => ({
  conversationId: 'c1',
  channel: 'whatsapp',
  open: true,
  until: at(18, 5),
  humanAgentUntil: null,
  templates: true,
  optedOut: false,
  ...overrides,
});

describe('reply window', () => {
  it('applies to WhatsApp, Messenger and Instagram only', () => {
    expect(['WhatsApp', 'facebook', 'instagram'].map(hasReplyWindow)).toEqual([true, true, true]);
    expect(['webchat', 'telegram', 'twitter'].map(hasReplyWindow)).toEqual([false, false, false]);
  });

  it('is loading until read, free without a limit, open until its time', () => {
    expect(replyWindowState(null, NOW)).toEqual({ kind: 'loading' });
    expect(replyWindowState(view({ until: null }), NOW)).toEqual({ kind: 'free' });
    expect(replyWindowState(view(), NOW)).toEqual({ kind: 'open', until: at(18, 5) });
    expect(allowsFreeText(replyWindowState(view(), NOW))).toBe(true);
  });

  it('closes on screen when its time passes, offering templates when the account has them', () => {
    expect(replyWindowState(view({ until: at(15, 29) }), NOW)).toEqual({ kind: 'closed', templates: true });
    expect(replyWindowState(view({ open: false, until: at(9), templates: false }), NOW)).toEqual({ kind: 'closed', templates: false });
    expect(allowsFreeText({ kind: 'closed', templates: true })).toBe(false);
  });

  it("keeps free text after the window while the human-agent tag's time lasts", () => {
    const state = replyWindowState(view({ open: false, until: at(9), humanAgentUntil: at(20) }), NOW);
    expect(state).toEqual({ kind: 'humanAgent', until: at(20) });
    expect(allowsFreeText(state)).toBe(true);
    expect(msUntilChange(state, NOW)).toBe(4.5 * 3_600_000);
  });

  it('blocks everything for an opted-out customer, whatever the window says', () => {
    const state = replyWindowState(view({ optedOut: true }), NOW);
    expect(state).toEqual({ kind: 'optedOut' });
    expect(allowsFreeText(state)).toBe(false);
    expect(msUntilChange(state, NOW)).toBeNull();
  });

  it('says the closing time as HH:mm today and with the date on another day', () => {
    expect(windowTime(at(18, 5), NOW)).toBe('18:05');
    expect(windowTime(at(9, 7, 11), NOW)).toBe('11-05-2026 09:07');
  });
});
