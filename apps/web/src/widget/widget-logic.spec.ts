import { describe, expect, it } from '@jest/globals';
import { WIDGET_WIDTH_PX } from '@centralita/contracts';
import { LAUNCHER } from './launcher-config';
import { pickLanguage, readVisitor, submenusOf, surveyAnswers, toggleChoice, validatePrechat, visitorStorageKey } from './widget-logic';

describe('web-chat widget logic', () => {
  it('takes the language from ?lang= first', () => {
    expect(pickLanguage('?lang=de', ['en-US'])).toBe('de');
  });

  it('falls back to the browser language, then Spanish', () => {
    expect(pickLanguage('', ['ru-RU', 'en'])).toBe('ru');
    expect(pickLanguage('?lang=xx', ['ja'])).toBe('es');
    expect(pickLanguage('?lang=sp', [])).toBe('es');
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
});
