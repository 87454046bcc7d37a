import { describe, expect, it, jest } from '@jest/globals';
import { WIDGET_WIDTH_PX } from '@centralita/contracts';
import { frameQuery } from './embed';
import { LAUNCHER } from './launcher-config';
import {
  clockTime,
  differentClock,
  pickLanguage,
  prechatScreen,
  reopening,
  scheduleRows,
  readVisitor,
  submenusOf,
  surveyAnswers,
  toggleChoice,
  TYPING_SAFETY_MS,
  typingIndicator,
  validatePrechat,
  visitorStorageKey,
  widgetTitle,
} from './widget-logic';

describe('web-chat widget logic', () => {
  it('takes the language from ?lang= first', () => {
    expect(pickLanguage('?lang=de', ['en-US'])).toBe('de');
  });

  it('falls back to the browser language, then Spanish', () => {
    expect(pickLanguage('', ['ru-RU', 'en'])).toBe('ru');
    expect(pickLanguage('?lang=xx', ['ja'])).toBe('es');
    expect(pickLanguage('?lang=sp', [])).toBe('es');
  });

  it('follows the first supported browser language when the embed names none', () => {
    expect(pickLanguage('', ['ja-JP', 'el-GR', 'en'])).toBe('el');
    expect(pickLanguage('?tenant=t&line=l&embed=1', ['sr-Latn-RS', 'de'])).toBe('sr');
    expect(pickLanguage('', ['fr-FR', 'pt'])).toBe('es');
  });

  it('passes only the embed’s own data-lang to the chat page, never the host page’s language', () => {
    expect(frameQuery({ tenant: 't1', line: 'l1' }).toString()).toBe('tenant=t1&line=l1&embed=1');
    expect(frameQuery({ tenant: 't1', line: 'l1', lang: ' ' }).has('lang')).toBe(false);
    expect(frameQuery({ tenant: 't1', line: 'l1', lang: 'it' }).get('lang')).toBe('it');
    // The chat page then picks: the embed's language, else the browser's.
    expect(pickLanguage(`?${frameQuery({ line: 'l1' }).toString()}`, ['ru-RU'])).toBe('ru');
    expect(pickLanguage(`?${frameQuery({ line: 'l1', lang: 'de' }).toString()}`, ['ru-RU'])).toBe('de');
  });

  it('requires a name and validates an optional email', () => {
    expect(validatePrechat('  ', '')).toEqual({ name: 'required' });
    expect(validatePrechat('Ada', '')).toEqual({});
    expect(validatePrechat('Ada', 'not-an-email')).toEqual({ email: 'invalid' });
    expect(validatePrechat('x'.repeat(121), 'ada@example.com')).toEqual({ name: 'tooLong' });
  });

  it('offers the submenus of the chosen query type only', () => {
    expect(submenusOf('billing')).toContain('refund');
    expect(submenusOf('nope')).toEqual([]);
  });

  describe('survey answers of the line poll', () => {
    const questions = [
      { id: 'q1', responseType: 'single' as const, options: ['Good', 'Bad'] },
      { id: 'q2', responseType: 'scale' as const, options: [] },
      { id: 'q3', responseType: 'text' as const, options: [] },
    ];

    it('waits until every choice question is answered validly', () => {
      expect(surveyAnswers(questions, { q1: 'Good' })).toBeNull();
      expect(surveyAnswers(questions, { q1: 'Good', q2: '11' })).toBeNull();
    });

    it('skips unwritten free text and marks the last answer sent', () => {
      expect(surveyAnswers(questions, { q1: 'Good', q2: '9', q3: '  ' })).toEqual([
        { questionId: 'q1', answer: 'Good', last: false },
        { questionId: 'q2', answer: '9', last: true },
      ]);
      expect(surveyAnswers(questions, { q1: 'Bad', q2: '0', q3: 'Slow' })?.map((a) => a.last)).toEqual([false, false, true]);
    });

    it('toggles choices of a multiple-choice answer', () => {
      expect(toggleChoice('', 'Price')).toBe('Price');
      expect(toggleChoice('Price', 'Speed')).toBe('Price | Speed');
      expect(toggleChoice('Price | Speed', 'Price')).toBe('Speed');
    });
  });

  it('restores a stored visitor and ignores garbage', () => {
    const store = new Map([
      [visitorStorageKey('l1'), JSON.stringify({ token: 't', conversationId: 'c' })],
      [visitorStorageKey('l2'), '{'],
    ]);
    const storage = { getItem: (key: string) => store.get(key) ?? null };
    expect(readVisitor(storage, 'l1')).toEqual({ token: 't', conversationId: 'c', line: 'l1' });
    expect(readVisitor(storage, 'l2')).toBeNull();
    expect(readVisitor(storage, 'l3')).toBeNull();
  });

  it('opens a panel as wide as the spec says', () => {
    expect(LAUNCHER.panelWidth).toBe(WIDGET_WIDTH_PX);
  });

  it("shows the line's welcome, or the off-hours notice and no form when the line is closed", () => {
    expect(prechatScreen(null)).toEqual({ kind: 'loading' });
    expect(prechatScreen({ open: true, welcomeMessage: ' Hi! ', offHoursMessage: 'Closed' })).toEqual({ kind: 'open', welcome: 'Hi!' });
    expect(prechatScreen({ open: true, welcomeMessage: '', offHoursMessage: '' })).toEqual({ kind: 'open', welcome: null });
    expect(prechatScreen({ open: false, welcomeMessage: 'Hi!', offHoursMessage: 'Back at 9' })).toEqual({
      kind: 'closed',
      message: 'Back at 9',
    });
    expect(prechatScreen({ open: false, welcomeMessage: 'Hi!', offHoursMessage: '  ' })).toEqual({ kind: 'closed', message: null });
  });

  it('titles the widget from the channel card, else the translated default', () => {
    expect(widgetTitle({ widgetTitle: 'Acme help' }, 'Customer chat')).toBe('Acme help');
    expect(widgetTitle({ widgetTitle: ' ' }, 'Customer chat')).toBe('Customer chat');
    expect(widgetTitle(null, 'Customer chat')).toBe('Customer chat');
  });

  it('turns a lost typing indicator off after the desk’s 8 seconds', () => {
    jest.useFakeTimers();
    try {
      const seen: boolean[] = [];
      const indicator = typingIndicator((typing) => seen.push(typing));
      indicator.set(true);
      jest.advanceTimersByTime(TYPING_SAFETY_MS - 1);
      expect(seen).toEqual([true]);
      // A new "typing" restarts the wait.
      indicator.set(true);
      jest.advanceTimersByTime(TYPING_SAFETY_MS - 1);
      expect(seen).toEqual([true, true]);
      jest.advanceTimersByTime(1);
      expect(seen).toEqual([true, true, false]);
      // A real "stopped" cancels the safety timer; dispose leaves nothing pending.
      indicator.set(true);
      indicator.set(false);
      indicator.set(true);
      indicator.dispose();
      jest.advanceTimersByTime(TYPING_SAFETY_MS * 2);
      expect(seen).toEqual([true, true, false, true, false, true]);
      expect(TYPING_SAFETY_MS).toBe(8000);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('reopening', () => {
  const monday9 = { at: '2026-01-12T08:00:00.000Z', day: 1, time: '09:00', daysAhead: 3 };

  it('names the weekday and the time in the widget’s language', () => {
    expect(reopening(monday9, 'es')).toEqual({ key: 'reopensOn', day: 'lunes', time: '09:00' });
    expect(reopening(monday9, 'de')).toEqual({ key: 'reopensOn', day: 'Montag', time: '09:00' });
    expect(reopening(monday9, 'en')).toMatchObject({ day: 'Monday', time: '09:00 AM' });
    expect(reopening({ ...monday9, day: 3 }, 'sr').day).toBe('sreda');
    expect(reopening({ ...monday9, day: 0 }, 'ru').day).toBe('воскресенье');
  });

  it('says today or tomorrow when the line opens within a day', () => {
    expect(reopening({ ...monday9, daysAhead: 0 }, 'es').key).toBe('reopensToday');
    expect(reopening({ ...monday9, daysAhead: 1 }, 'es').key).toBe('reopensTomorrow');
    expect(reopening({ ...monday9, daysAhead: 7 }, 'es').key).toBe('reopensOn');
  });
});

describe('scheduleRows', () => {
  it('puts consecutive days with the same hours on one row, Monday first, closed days left out', () => {
    const hours = [
      { day: 6, from: '10:00', to: '14:00' },
      ...[1, 2, 3, 4, 5].map((day) => ({ day, from: '09:00', to: '18:00' })),
      { day: 0, from: '10:00', to: '14:00' },
    ];
    expect(scheduleRows(hours)).toEqual([
      { firstDay: 1, lastDay: 5, windows: [{ from: '09:00', to: '18:00' }] },
      { firstDay: 6, lastDay: 0, windows: [{ from: '10:00', to: '14:00' }] },
    ]);
  });

  it('keeps a closed day between equal days apart, and lists a day’s windows in order', () => {
    const hours = [
      { day: 1, from: '15:00', to: '18:00' },
      { day: 1, from: '09:00', to: '13:00' },
      { day: 3, from: '09:00', to: '13:00' },
      { day: 3, from: '15:00', to: '18:00' },
    ];
    const split = [
      { from: '09:00', to: '13:00' },
      { from: '15:00', to: '18:00' },
    ];
    expect(scheduleRows(hours)).toEqual([
      { firstDay: 1, lastDay: 1, windows: split },
      { firstDay: 3, lastDay: 3, windows: split },
    ]);
  });

  it('ignores windows that can never open', () => {
    expect(
      scheduleRows([
        { day: 1, from: '18:00', to: '09:00' },
        { day: 9, from: '09:00', to: '10:00' },
        { day: 2, from: '9:00', to: '10:00' },
      ]),
    ).toEqual([]);
  });
});

describe('clockTime / differentClock', () => {
  it('writes a wall-clock time as the language does', () => {
    expect(clockTime('18:30', 'es')).toBe('18:30');
    expect(clockTime('18:30', 'en')).toBe('06:30 PM');
    expect(clockTime('24:00', 'es')).toBe('24:00');
  });

  it('tells when the visitor’s clock is not the line’s', () => {
    const at = '2026-01-12T08:00:00.000Z';
    expect(differentClock(at, 'Europe/Madrid', 'Europe/Madrid')).toBe(false);
    expect(differentClock(at, 'Europe/Madrid', 'Europe/Rome')).toBe(false);
    expect(differentClock(at, 'Europe/Madrid', 'America/Bogota')).toBe(true);
    expect(differentClock(at, 'Europe/Madrid', undefined)).toBe(false);
  });
});
