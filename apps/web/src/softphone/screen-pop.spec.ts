import { describe, expect, it } from '@jest/globals';
import type { ContactPersonView, ContactTimelineEntry } from '@centralita/contracts';
import { conversationIdFrom, formatIvrPath, knownCaller, waitedMs } from './screen-pop';

const ID = '5B0F3C1E-8A57-4C61-9A3E-2F1D6C7B8A90';
const THIS = '11111111-1111-4111-8111-111111111111';
const NUMBER = '+34661234567';

function person(name: string, timeline: ContactTimelineEntry[], identities = 1): ContactPersonView {
  return {
    contactId: 'c1',
    personId: identities > 1 ? 'p1' : null,
    identities: Array.from({ length: identities }, (_, index) => ({
      id: `c${index + 1}`,
      channel: index === 0 ? 'phone' : 'WhatsApp',
      channelAccountId: 'pstn',
      externalId: NUMBER,
      name: index === 0 ? name : 'Marta (WhatsApp)',
      email: null,
      createdAt: '2026-11-01T10:00:00Z',
    })),
    timeline,
    casesAvailable: true,
    history: [],
  };
}

const conversation = (id: string, createdAt = '2026-11-20T09:00:00Z'): ContactTimelineEntry => ({
  kind: 'conversation',
  id,
  contactId: 'c1',
  channel: 'phone',
  status: 'Closed',
  lineName: 'Ventas',
  createdAt,
  closedAt: null,
});
const kase = (id: string, status: string | null): ContactTimelineEntry => ({
  kind: 'case',
  id,
  code: `CS-${id}`,
  subject: 'Factura',
  status,
  conversationId: 'x',
  createdAt: '2026-11-21T09:00:00Z',
});

describe('inbound screen pop', () => {
  it('takes the conversation id from the voice server header, and nothing else', () => {
    expect(conversationIdFrom(ID)).toBe(ID.toLowerCase());
    expect(conversationIdFrom(` ${ID} `)).toBe(ID.toLowerCase());
    expect(conversationIdFrom(undefined)).toBeNull();
    expect(conversationIdFrom(null)).toBeNull();
    expect(conversationIdFrom('')).toBeNull();
    expect(conversationIdFrom(`${ID}, ${ID}`)).toBeNull();
    expect(conversationIdFrom('<script>')).toBeNull();
  });

  it('writes the IVR path as node names with the key that led to each', () => {
    expect(
      formatIvrPath([
        { name: 'Menú principal', digit: null },
        { name: 'Ventas', digit: '1' },
      ]),
    ).toBe('Menú principal › 1 Ventas');
    expect(
      formatIvrPath([
        { name: 'Menu', digit: null },
        { name: 'Billing', digit: '2' },
        { name: 'Invoices', digit: '#' },
      ]),
    ).toBe('Menu › 2 Billing › # Invoices');
  });

  it('keeps a step whose name is empty as its key, and drops empty steps', () => {
    expect(
      formatIvrPath([
        { name: 'Menu', digit: null },
        { name: '  ', digit: '3' },
        { name: '', digit: null },
      ]),
    ).toBe('Menu › 3');
    expect(formatIvrPath([])).toBe('');
  });

  it('counts the wait from the queue entry, else from the start of the call', () => {
    const now = Date.parse('2026-11-26T10:01:30Z');
    expect(waitedMs({ queuedAt: '2026-11-26T10:00:00Z', startedAt: '2026-11-26T09:59:00Z' }, now)).toBe(90_000);
    expect(waitedMs({ queuedAt: null, startedAt: '2026-11-26T10:01:00Z' }, now)).toBe(30_000);
    expect(waitedMs({ queuedAt: null, startedAt: null }, now)).toBeNull();
    expect(waitedMs({ queuedAt: 'not a date', startedAt: null }, now)).toBeNull();
    // A clock slightly behind the server's never shows a negative wait.
    expect(waitedMs({ queuedAt: '2026-11-26T10:02:00Z', startedAt: null }, now)).toBe(0);
  });

  it('treats the contact the intake just made for a new number as no contact', () => {
    expect(knownCaller(person(NUMBER, [conversation(THIS)]), THIS, NUMBER)).toBeNull();
    expect(knownCaller(person('34661234567', [conversation(THIS)]), THIS, NUMBER)).toBeNull();
    expect(knownCaller(null, THIS, NUMBER)).toBeNull();
  });

  it('recognises a named contact, one with history, or one merged with other identities', () => {
    expect(knownCaller(person('Marta Ruiz', [conversation(THIS)]), THIS, NUMBER)?.name).toBe('Marta Ruiz');
    expect(knownCaller(person(NUMBER, [conversation(THIS), conversation('earlier')]), THIS, NUMBER)?.name).toBe(NUMBER);
    expect(knownCaller(person(NUMBER, [conversation(THIS)], 2), THIS, NUMBER)?.name).toBe('Marta (WhatsApp)');
  });

  it('lists earlier conversations without the ringing one, and only cases still open', () => {
    const known = knownCaller(
      person('Marta Ruiz', [
        conversation(THIS),
        kase('1', 'open'),
        kase('2', 'closed'),
        kase('3', 'in_progress'),
        kase('4', 'resolved'),
        kase('5', null),
        ...Array.from({ length: 7 }, (_, index) => conversation(`old-${index}`)),
      ]),
      THIS,
      NUMBER,
    )!;
    expect(known.openCases.map((entry) => entry.id)).toEqual(['1', '3', '5']);
    expect(known.recent.map((entry) => entry.id)).toEqual(['old-0', 'old-1', 'old-2', 'old-3', 'old-4']);
  });
});
