import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from './constants';

/**
 * The language to answer in from an Accept-Language header (the console sends the language the
 * user chose): the most preferred of the seven by quality, region ignored (`de-AT` is `de`); the
 * default, Spanish, when none of them is asked for.
 */
export function languageFromAcceptLanguage(header: string | null | undefined): Language {
  const ranges = (header ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((param) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(param)?.[1]).find((value) => value !== undefined);
      return { base: tag.trim().toLowerCase().split(/[-_]/)[0], quality: q === undefined ? 1 : Number(q), index };
    })
    .filter((range) => range.quality > 0 && Number.isFinite(range.quality))
    // Equal qualities keep the order they were given in.
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  const found = ranges.find((range) => (LANGUAGES as readonly string[]).includes(range.base));
  return (found?.base as Language | undefined) ?? DEFAULT_LANGUAGE;
}
