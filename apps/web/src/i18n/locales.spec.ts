import { describe, expect, it } from '@jest/globals';
import { APP_ROUTES, CATALOGUE_MESSAGES, ERROR_CODES, LANGUAGES, MENU_SECTIONS } from '@centralita/contracts';
import { THEMES } from '../theme/themes';
import { DICTIONARIES } from './resources';

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') out[prefix + key] = value;
    else Object.assign(out, flatten(value, `${prefix}${key}.`));
  }
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1]).sort();

const es = flatten(DICTIONARIES.es as unknown as Tree);
const others = LANGUAGES.filter((lng) => lng !== 'es');

describe('locales', () => {
  it.each(others)('%s has every key of es.json, none of them empty', (lng) => {
    const dict = flatten(DICTIONARIES[lng] as unknown as Tree);
    const missing = Object.keys(es).filter((key) => typeof dict[key] !== 'string' || dict[key].trim() === '');
    expect(missing).toEqual([]);
  });

  it.each(others)('%s has no keys that es.json lacks', (lng) => {
    const dict = flatten(DICTIONARIES[lng] as unknown as Tree);
    expect(Object.keys(dict).filter((key) => !(key in es))).toEqual([]);
  });

  it.each(others)('%s keeps the same interpolation placeholders as es.json', (lng) => {
    const dict = flatten(DICTIONARIES[lng] as unknown as Tree);
    const mismatched = Object.keys(es).filter((key) => placeholders(es[key]).join() !== placeholders(dict[key] ?? '').join());
    expect(mismatched).toEqual([]);
  });

  it('has no empty value in es.json', () => {
    expect(Object.entries(es).filter(([, value]) => value.trim() === '')).toEqual([]);
  });

  it.each(LANGUAGES)('%s translates the title of every route in APP_ROUTES', (lng) => {
    const dict = flatten(DICTIONARIES[lng] as unknown as Tree);
    expect(APP_ROUTES.map((r) => `routes.${r.titleKey}`).filter((key) => !dict[key]?.trim())).toEqual([]);
  });

  it.each(LANGUAGES)('%s names every capability of APP_ROUTES', (lng) => {
    const dict = flatten(DICTIONARIES[lng] as unknown as Tree);
    const capabilities = [...new Set(APP_ROUTES.map((r) => r.capability))];
    expect(capabilities.map((c) => `capabilities.${c}`).filter((key) => !dict[key]?.trim())).toEqual([]);
  });

  it.each(LANGUAGES)('%s translates every error code and catalogue message', (lng) => {
    const dict = flatten(DICTIONARIES[lng] as unknown as Tree);
    const keys = [...ERROR_CODES.map((code) => `errors.${code}`), ...Object.keys(CATALOGUE_MESSAGES).map((key) => `catalogue.${key}`)];
    expect(keys.filter((key) => !dict[key]?.trim())).toEqual([]);
  });

  it.each(LANGUAGES)('%s names every colour theme', (lng) => {
    const dict = flatten(DICTIONARIES[lng] as unknown as Tree);
    expect(THEMES.map((theme) => `themes.${theme.id}`).filter((key) => !dict[key]?.trim())).toEqual([]);
  });

  it.each(['dashboards', 'conversations', 'administration', 'settings', 'outbound', 'reports', 'crm', 'demo'])(
    'translates the menu section %s in every language',
    (section) => {
      const missing = LANGUAGES.filter((lng) => !flatten(DICTIONARIES[lng] as unknown as Tree)[`menu.${section}`]);
      expect(missing).toEqual([]);
    },
  );

  it.each(LANGUAGES)('%s translates every section and group the server builds menus from', (lng) => {
    const dict = flatten(DICTIONARIES[lng] as unknown as Tree);
    const keys = MENU_SECTIONS.flatMap((section) => [section.key, ...section.groups.map((group) => group.key)]);
    expect(keys.map((key) => `menu.${key}`).filter((key) => !dict[key]?.trim())).toEqual([]);
  });

  it('keeps the catalogue texts of the English dictionary identical to the contract', () => {
    const en = flatten(DICTIONARIES.en as unknown as Tree);
    for (const [key, message] of Object.entries(CATALOGUE_MESSAGES)) expect(en[`catalogue.${key}`]).toBe(message);
  });

  it("labels the not-found button 'Regresar al Dashboard' in Spanish", () => {
    expect(es['notFound.back']).toBe('Regresar al Dashboard');
  });

  it('uses the display words of spec §9 in Spanish', () => {
    expect([es['format.yes'], es['format.no'], es['format.active'], es['format.inactive'], es['format.notAvailable']]).toEqual([
      'Si',
      'No',
      'Activo',
      'Inactivo',
      'N/A',
    ]);
  });
});
