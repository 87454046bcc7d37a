import { describe, expect, it } from '@jest/globals';
import i18next from 'i18next';
import {
  ALL_PERMISSIONS,
  API_MESSAGE_KEYS,
  APP_ROUTES,
  CATALOGUE_MESSAGES,
  ERROR_CODES,
  LANGUAGES,
  MENU_SECTIONS,
  ROLE_CODES,
} from '@centralita/contracts';
import { THEMES } from '../theme/themes';
import { foldPlurals, pluralForms, pluralGroups } from './plural-keys';
import { DICTIONARIES } from './resources';

type Tree = { [key: string]: string | Tree };

function flattenForms(tree: Tree, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') out[prefix + key] = value;
    else Object.assign(out, flattenForms(value, `${prefix}${key}.`));
  }
  return out;
}

/** Keys as the console asks for them: plural forms (`_one`, `_few`…) folded into their key. */
const flatten = (tree: Tree): Record<string, string> => foldPlurals(flattenForms(tree));

const placeholders = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1]).sort();

const es = flatten(DICTIONARIES.es as unknown as Tree);
const others = LANGUAGES.filter((lng) => lng !== 'es');

describe('locales', () => {
  const esForms = flattenForms(DICTIONARIES.es as unknown as Tree);
  const esGroups = pluralGroups(esForms);

  it.each(LANGUAGES)('%s gives every plural key exactly the forms its plural rules need', (lng) => {
    const groups = pluralGroups(flattenForms(DICTIONARIES[lng] as unknown as Tree));
    const wrong = [...esGroups.keys()].filter((key) => groups.get(key)?.join() !== pluralForms(lng).join());
    expect(wrong).toEqual([]);
    expect([...groups.keys()].filter((key) => !esGroups.has(key))).toEqual([]);
  });

  it.each(LANGUAGES)('%s keeps the placeholders of es in every plural form', (lng) => {
    const dict = flattenForms(DICTIONARIES[lng] as unknown as Tree);
    const wrong = [...esGroups.keys()].flatMap((key) =>
      pluralForms(lng)
        .map((form) => `${key}_${form}`)
        .filter((formKey) => placeholders(dict[formKey] ?? '').join() !== placeholders(esForms[`${key}_other`]!).join()),
    );
    expect(wrong).toEqual([]);
  });

  it('puts a counted noun only in plural keys (the number agrees with the word)', () => {
    // Exceptions: an abbreviation; a noun that agrees with {{total}}; fixed password-policy lengths (8, 16).
    const exempt = ['common.minutes', 'reports.exporting', 'validation.weakPassword', 'auth.signup.passwordRule'];
    const counted = Object.entries(esForms)
      .filter(([key, value]) => !/_(one|few|many|other)$/.test(key) && /\{\{count\}\} \p{L}/u.test(value))
      .map(([key]) => key);
    expect(counted.filter((key) => !exempt.includes(key))).toEqual([]);
  });

  it('shows counts with the word in agreement ("1 agente disponible", "2 agentes disponibles")', async () => {
    const instance = i18next.createInstance();
    await instance.init({
      resources: Object.fromEntries(LANGUAGES.map((lng) => [lng, { translation: DICTIONARIES[lng] }])),
      lng: 'es',
      interpolation: { escapeValue: false },
      initAsync: false,
    });
    const agents = (count: number) => instance.t('desk.transfer.agentsAvailable', { count });
    expect([agents(0), agents(1), agents(2)]).toEqual(['0 agentes disponibles', '1 agente disponible', '2 agentes disponibles']);
    expect(instance.t('admin.roles.permissionCount', { count: 1 })).toBe('1 permiso');
    await instance.changeLanguage('ru');
    expect([agents(1), agents(3), agents(5), agents(21)]).toEqual([
      '1 свободный оператор',
      '3 свободных оператора',
      '5 свободных операторов',
      '21 свободный оператор',
    ]);
    await instance.changeLanguage('sr');
    expect([agents(1), agents(2), agents(5)]).toEqual(['1 slobodan agent', '2 slobodna agenta', '5 slobodnih agenata']);
    await instance.changeLanguage('en');
    expect(instance.t('validation.maxLength', { count: 1 })).toBe('Maximum 1 character.');
    expect(instance.t('validation.maxLength', { count: 32 })).toBe('Maximum 32 characters.');
  });

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

  it('words every keyed API refusal in every language (apiMessages.<key>)', () => {
    for (const language of LANGUAGES) {
      const messages = (DICTIONARIES[language] as { apiMessages?: Record<string, string> }).apiMessages ?? {};
      const missing = API_MESSAGE_KEYS.filter((key) => !messages[key] && !Object.keys(messages).some((name) => name.startsWith(`${key}_`)));
      expect({ language, missing }).toEqual({ language, missing: [] });
    }
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

  it.each(LANGUAGES)('%s names every permission and built-in role', (lng) => {
    const dict = flatten(DICTIONARIES[lng] as unknown as Tree);
    const keys = [...ALL_PERMISSIONS.map((code) => `permissionNames.${code}`), ...ROLE_CODES.map((code) => `roles.${code}`)];
    expect(keys.filter((key) => !dict[key]?.trim() || dict[key] === key.split('.').slice(1).join('.'))).toEqual([]);
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
