import { languageFromAcceptLanguage } from './languages';

describe(languageFromAcceptLanguage.name, () => {
  it('takes the language the console sends', () => {
    expect(languageFromAcceptLanguage('de')).toBe('de');
    expect(languageFromAcceptLanguage('ru')).toBe('ru');
  });

  it('takes the most preferred of the seven, ignoring the region', () => {
    expect(languageFromAcceptLanguage('fr-FR,fr;q=0.9,en-GB;q=0.8,de;q=0.7')).toBe('en');
    expect(languageFromAcceptLanguage('it;q=0.5, el;q=0.8')).toBe('el');
    expect(languageFromAcceptLanguage('sr-Latn-RS')).toBe('sr');
    expect(languageFromAcceptLanguage('EN-us')).toBe('en');
  });

  it('keeps the given order between equal qualities and skips refused ones', () => {
    expect(languageFromAcceptLanguage('de, en')).toBe('de');
    expect(languageFromAcceptLanguage('en;q=0, it')).toBe('it');
  });

  it('falls back to Spanish when none of the seven is asked for', () => {
    for (const header of [undefined, null, '', '*', 'fr, pt-BR;q=0.8', 'garbage;;q=x']) {
      expect(languageFromAcceptLanguage(header)).toBe('es');
    }
  });
});
