import { describe, expect, it } from '@jest/globals';
import type { ConversationDetail, ReportColumn } from '@centralita/contracts';
import { defaultWindow, formatReportCell, messageSender, reportQuery, transitionActor, transitionText } from './report-format';

const column = (kind: ReportColumn['kind'], key: ReportColumn['key'] = 'value'): ReportColumn => ({ key, kind });

describe(formatReportCell.name, () => {
  it('shows durations as hh:mm:ss, ratios as percentages and nulls as N/A', () => {
    expect(formatReportCell(column('seconds'), 3725)).toBe('01:02:05');
    expect(formatReportCell(column('ratio'), 0.04)).toBe('4.0 %');
    expect(formatReportCell(column('number'), 0)).toBe('0');
    expect(formatReportCell(column('text'), null)).toBe('N/A');
  });

  it('shows dates as DD-MM-YYYY hh:mm:ss and conversation ids shortened', () => {
    expect(formatReportCell(column('datetime'), new Date(2026, 0, 15, 9, 5, 7).toISOString())).toBe('15-01-2026 09:05:07');
    expect(formatReportCell(column('text', 'id'), '4f3f4a9d-1111-4222-8333-444455556666')).toBe('4f3f4a9d');
  });

  it('shows states, channels, outcomes and dispositions by their label in the reader’s language, names as they are', () => {
    expect(formatReportCell(column('text', 'status'), 'LiningUp', undefined, 'ru')).toBe('В очереди');
    expect(formatReportCell(column('text', 'status'), 'Closed', undefined, 'el')).toBe('Κλειστή');
    expect(formatReportCell(column('text', 'status'), 'Active')).toBe('Activa');
    expect(formatReportCell(column('text', 'channel'), 'webchat', undefined, 'ru')).toBe('WebChat');
    expect(formatReportCell(column('text', 'channel'), 'phone', undefined, 'de')).toBe('Telefon');
    expect(formatReportCell(column('text', 'outcome'), 'noAnswer', undefined, 'en')).toBe('No answer');
    expect(formatReportCell(column('text', 'disposition'), 'wrongNumber', undefined, 'sr')).toBe('Pogrešan broj');
    expect(formatReportCell(column('text', 'customer'), 'LiningUp', undefined, 'ru')).toBe('LiningUp');
    expect(formatReportCell(column('text', 'status'), null, undefined, 'ru')).toBe('N/A');
  });

  it('keeps formula-looking text as text on screen', () => {
    expect(formatReportCell(column('text'), '=HYPERLINK("x")')).toBe('=HYPERLINK("x")');
  });
});

describe(reportQuery.name, () => {
  it('sends the window as ISO and only the filters that are set', () => {
    const { from, to } = defaultWindow(new Date(2026, 0, 15, 13, 30));
    expect([from, to]).toEqual([new Date(2026, 0, 9), new Date(2026, 0, 16)]);
    expect(reportQuery({ from, to, channel: 'webchat', agentId: undefined })).toEqual({
      from: from.toISOString(),
      to: to.toISOString(),
      channel: 'webchat',
    });
  });

  it('asks for voicemails only when that box is ticked', () => {
    const { from, to } = defaultWindow(new Date(2026, 0, 15));
    expect(reportQuery({ from, to, voicemail: true })).toMatchObject({ voicemail: 'true' });
    expect(reportQuery({ from, to, voicemail: false })).not.toHaveProperty('voicemail');
  });
});

type Transition = ConversationDetail['transitions'][number];
const transition = (over: Partial<Transition>): Transition => ({
  at: '2026-01-15T09:00:00.000Z',
  from: 'LiningUp',
  to: 'Active',
  event: 'conversation.assigned',
  actorKind: 'agent',
  actor: 'Ana Agente',
  ...over,
});

describe('conversation detail texts', () => {
  it('names the states and the event of a status change, never their codes', () => {
    expect(transitionText(transition({}), 'es')).toBe('En cola → Activa (Asignada a un agente)');
    expect(transitionText(transition({ from: null, to: 'Transitory', event: 'xstate.init' }), 'el')).toBe('— → Μεταβατική (Δημιουργήθηκε)');
    expect(transitionText(transition({ from: 'Transitory', to: 'LiningUp', event: 'conversation.menuCompleted' }), 'ru')).toBe(
      'Переходная → В очереди (Меню пройдено)',
    );
  });

  it('names agents and supervisors, and the customer and the system by their role', () => {
    expect(transitionActor(transition({}), 'ru')).toBe('Ana Agente');
    expect(transitionActor(transition({ actorKind: 'supervisor', actor: 'Sara' }), 'ru')).toBe('Sara');
    expect(transitionActor(transition({ actorKind: 'customer', actor: 'visitor-4f3f4a9d' }), 'ru')).toBe('Клиент');
    expect(transitionActor(transition({ actorKind: 'system', actor: null }), 'el')).toBe('Σύστημα');
    expect(transitionActor(transition({ actorKind: 'agent', actor: null }), 'de')).toBe('Agent');
  });

  it('writes a system message’s sender in the reader’s language', () => {
    const message = { at: '2026-01-15T09:00:00.000Z', text: 'hola', sender: 'System', senderKind: 'system' };
    expect(messageSender(message, 'it')).toBe('Sistema');
    expect(messageSender({ ...message, senderKind: 'customer', sender: 'Carla' }, 'it')).toBe('Carla');
  });

  it('writes the bot’s messages as the bot, translated, never the raw kind', () => {
    const message = { at: '2026-01-15T09:00:00.000Z', text: 'Hola, soy el asistente', sender: 'Bot', senderKind: 'bot' };
    expect(messageSender(message, 'ru')).toBe('Бот');
    expect(messageSender(message, 'es')).toBe('Bot');
  });
});
