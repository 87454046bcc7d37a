import { describe, expect, it } from '@jest/globals';
import i18next from 'i18next';
import { localeOption, localeOptions } from 'primereact/api';
import { LANGUAGES } from '@centralita/contracts';
import { PRIME_ARIA, PRIME_LOCALES, applyPrimeLocale, bindPrimeLocale } from './primereact-locale';

describe('PrimeReact locale', () => {
  it('follows i18next: on start and on every language change', async () => {
    const instance = i18next.createInstance();
    await instance.init({ lng: 'el', supportedLngs: [...LANGUAGES], resources: {}, initAsync: false });
    bindPrimeLocale(instance);
    expect(localeOption('monthNames', '')?.[0]).toBe('Ιανουάριος');
    expect(localeOption('accept', '')).toBe('Ναι');

    await instance.changeLanguage('ru');
    expect(localeOption('monthNames', '')?.[2]).toBe('Март');
    expect(localeOption('reject', '')).toBe('Нет');

    await instance.changeLanguage('es');
    expect(localeOption('dayNames', '')?.[1]).toBe('lunes');

    await instance.changeLanguage('en');
    expect(localeOption('monthNames', '')?.[0]).toBe('January');
  });

  it.each(LANGUAGES.filter((lng) => lng !== 'en'))('%s has its own words, not English copies', (lng) => {
    const en = localeOptions('en') as Record<string, unknown>;
    const own = PRIME_LOCALES[lng] as Record<string, unknown>;
    expect(own.reject).toBeDefined(); // "No" is Spanish and Italian too
    for (const key of ['accept', 'cancel', 'clear', 'today', 'monthNames', 'dayNames', 'dayNamesMin', 'monthNamesShort']) {
      expect(own[key]).toBeDefined();
      expect(own[key]).not.toEqual(en[key]);
    }
    expect(own.monthNames).toHaveLength(12);
    expect(own.monthNamesShort).toHaveLength(12);
    expect(own.dayNames).toHaveLength(7);
    expect(own.dayNamesShort).toHaveLength(7);
    expect(own.dayNamesMin).toHaveLength(7);
  });

  it.each(LANGUAGES.filter((lng) => lng !== 'en'))('%s reads the paginator and list ARIA labels in its own words', (lng) => {
    applyPrimeLocale(lng);
    const aria = localeOption('aria', lng) as Record<string, string>;
    const english = (localeOptions('en') as { aria: Record<string, string> }).aria;
    expect(aria.pageLabel).toMatch(/\{page\}/);
    for (const key of [
      'firstPageLabel',
      'prevPageLabel',
      'nextPageLabel',
      'lastPageLabel',
      'jumpToPageDropdownLabel',
      'rowsPerPageLabel',
    ]) {
      expect(aria[key]).toBe(PRIME_ARIA[lng as Exclude<typeof lng, 'en'>][key]);
      expect(aria[key]).not.toBe(english[key]);
    }
    // Labels not translated here keep PrimeReact's English rather than disappearing.
    expect(aria.zoomImage).toBe(english.zoomImage);
  });
});
