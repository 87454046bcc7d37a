import { describe, expect, it } from '@jest/globals';
import { LANGUAGES } from '@centralita/contracts';
import { foldPlurals } from '../i18n/plural-keys';
import { AREA_DICTIONARIES, DICTIONARIES } from '../i18n/resources';

type Tree = { [key: string]: string | Tree };

function flattenForms(tree: Tree, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') out[prefix + key] = value;
    else Object.assign(out, flattenForms(value, `${prefix}${key}.`));
  }
  return out;
}

/** Plural forms (`_one`, `_few`…) folded into their key: languages need different forms (locales.spec checks them). */
const flatten = (tree: Tree): Record<string, string> => foldPlurals(flattenForms(tree));

const placeholders = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1]).sort();
const others = LANGUAGES.filter((lng) => lng !== 'es');
const areas = Object.keys(AREA_DICTIONARIES) as Array<keyof typeof AREA_DICTIONARIES>;
const dictionary = (area: keyof typeof AREA_DICTIONARIES, lng: (typeof LANGUAGES)[number]) =>
  flatten(AREA_DICTIONARIES[area][lng] as unknown as Tree);
const cases = areas.flatMap((area) => others.map((lng) => [area, lng] as const));

/** Every area namespace (locales/<area>/) is as complete in the six other languages as in es. */
describe('area locale namespaces', () => {
  it.each(cases)('%s/%s has every key of es, none empty, and no extra ones', (area, lng) => {
    const es = dictionary(area, 'es');
    const dict = dictionary(area, lng);
    expect(Object.keys(es).filter((key) => !dict[key]?.trim())).toEqual([]);
    expect(Object.keys(dict).filter((key) => !(key in es))).toEqual([]);
  });

  it.each(cases)('%s/%s keeps the interpolation placeholders of es', (area, lng) => {
    const es = dictionary(area, 'es');
    const dict = dictionary(area, lng);
    expect(Object.keys(es).filter((key) => placeholders(es[key]).join() !== placeholders(dict[key] ?? '').join())).toEqual([]);
  });

  it.each(cases)('%s/%s is really translated (not a copy of the Spanish)', (area, lng) => {
    const es = dictionary(area, 'es');
    const same = Object.keys(es).filter((key) => dictionary(area, lng)[key] === es[key]);
    // Proper names and loanwords ('Spam', 'Agent', 'SIP'…) may coincide; whole sections may not.
    expect(same.length).toBeLessThanOrEqual(Math.max(2, Object.keys(es).length * 0.15));
  });

  it.each(LANGUAGES)('%s merges every area under its own key', (lng) => {
    for (const area of areas) expect(DICTIONARIES[lng][area]).toBe(AREA_DICTIONARIES[area][lng]);
  });
});
