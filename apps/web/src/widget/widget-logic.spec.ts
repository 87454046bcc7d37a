import { describe, expect, it } from '@jest/globals';
import { WIDGET_WIDTH_PX } from '@centralita/contracts';
import { LAUNCHER } from './launcher-config';
import { pickLanguage, readVisitor, submenusOf, surveyAnswers, validatePrechat, visitorStorageKey } from './widget-logic';

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

  it('sends the rating last when there is no comment', () => {
    expect(surveyAnswers(5, '  ')).toEqual([{ questionId: 'rating', answer: '5', last: true }]);
    expect(surveyAnswers(4, 'Great').map((a) => a.last)).toEqual([false, true]);
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
