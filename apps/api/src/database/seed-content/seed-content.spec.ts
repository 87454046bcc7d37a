import { LANGUAGES, type Language } from '@centralita/contracts';
import { demoContent, seedLanguage } from '.';

/** Every string of a content tree, with its path. */
function strings(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item, index) => strings(item, `${path}[${index}]`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => strings(item, path ? `${path}.${key}` : key));
  return [];
}

/** Words that stay as they are in every language: brand names and the script's placeholders. */
const KEPT = /WhatsApp|Centralita|\{\{\w+\}\}/g;

describe(demoContent.name, () => {
  const english = new Map(strings(demoContent('en')));

  it.each(LANGUAGES.map((language) => [language]))('has every text, none of them empty, in %s', (language) => {
    const texts = strings(demoContent(language));
    expect(texts.map(([path]) => path)).toEqual([...english.keys()]);
    expect(texts.filter(([, text]) => !text.trim())).toEqual([]);
  });

  it.each(LANGUAGES.filter((language) => language !== 'en').map((language) => [language]))(
    'is a translation in %s, not the English text left in place',
    (language) => {
      // A few words are spelled alike in English and another language (General, Neutral, Telefon…).
      const same = strings(demoContent(language)).filter(([path, text]) => english.get(path) === text && text.split(' ').length > 1);
      expect(same).toEqual([]);
    },
  );

  it.each([['el'], ['ru']] as [Language][])('writes %s in its own alphabet, with no Latin word left but brand names', (language) => {
    const latin = strings(demoContent(language)).filter(([, text]) => /[A-Za-z]/.test(text.replace(KEPT, '')));
    expect(latin).toEqual([]);
  });

  it('keeps the script placeholders and the shortcuts the same in every language', () => {
    for (const language of LANGUAGES) {
      const content = demoContent(language);
      expect(content.outbound.script.match(/\{\{\w+\}\}/g)).toEqual(['{{customerName}}', '{{offer}}', '{{phone}}']);
      expect(Object.keys(content.predefinedMessages)).toEqual(['hello', 'wait', 'else']);
      expect(Object.keys(content.pauseReasons)).toEqual(['break', 'lunch', 'training', 'meeting']);
    }
  });
});

describe(seedLanguage.name, () => {
  it('is Spanish when SEED_LANGUAGE is unset or empty, and reads any case', () => {
    expect(seedLanguage(undefined)).toBe('es');
    expect(seedLanguage(' ')).toBe('es');
    expect(seedLanguage('EN')).toBe('en');
  });

  it('refuses a language the console does not have, naming the ones it has', () => {
    expect(() => seedLanguage('fr')).toThrow('SEED_LANGUAGE must be one of es, en, el, it, sr, de, ru (got "fr")');
  });
});
