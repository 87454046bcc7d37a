import { describe, expect, it } from '@jest/globals';
import { PHONE_IMPORT_FAILURE_CODES, type PhoneImportState } from '@centralita/contracts';
import i18next from 'i18next';
import de from '../../locales/de.json';
import el from '../../locales/el.json';
import en from '../../locales/en.json';
import es from '../../locales/es.json';
import it_ from '../../locales/it.json';
import ru from '../../locales/ru.json';
import sr from '../../locales/sr.json';
import { importFailureText } from './phone-import-failure';

const translator = async (lng: string, translation: object) => {
  const i18n = i18next.createInstance();
  await i18n.init({ lng, resources: { [lng]: { translation } }, interpolation: { escapeValue: false } });
  return i18n.t.bind(i18n) as (key: string, values?: Record<string, unknown>) => string;
};

describe(importFailureText.name, () => {
  it("translates the worker's refusal code instead of showing its English text", async () => {
    const t = await translator('es', es);
    const state = {
      failure: 'the file contains formulas; export plain values and try again',
      failureCode: 'formulas' as const,
      errorRows: 0,
    };
    expect(importFailureText(state, t)).toBe('El archivo contiene fórmulas; exporte solo valores y vuelva a intentarlo.');
    expect(importFailureText({ failure: 'the file has more than 50000 rows', failureCode: 'too_many_rows', errorRows: 0 }, t)).toBe(
      'El archivo tiene más de 50000 filas.',
    );
  });

  it('has a translation for every code', async () => {
    for (const [lng, resources] of [
      ['es', es],
      ['en', en],
      ['el', el],
      ['it', it_],
      ['sr', sr],
      ['de', de],
      ['ru', ru],
    ] as const) {
      const t = await translator(lng, resources);
      for (const code of PHONE_IMPORT_FAILURE_CODES) {
        const text = importFailureText({ failure: 'english', failureCode: code, errorRows: code === 'rows_invalid' ? 2 : 0 }, t);
        expect(text).not.toBe('english');
        expect(text).not.toContain('admin.phoneLists');
      }
    }
  });

  it('names the limit a hostile file crossed', async () => {
    const t = await translator('es', es);
    const text = (failureCode: PhoneImportState['failureCode']) => importFailureText({ failure: 'english', failureCode, errorRows: 0 }, t);
    expect(text('too_many_columns')).toBe('Una fila tiene más de 1000 columnas.');
    expect(text('cell_too_large')).toBe('Una celda contiene más de 32767 caracteres.');
    expect(text('too_slow')).toBe('La lectura del archivo tardó más de 30 segundos; divídalo en archivos más pequeños.');
    expect(text('encrypted')).toBe('El archivo está protegido con contraseña; guárdelo sin contraseña y vuelva a intentarlo.');
  });

  it('counts rejected rows, and falls back to the text for unknown or missing codes', async () => {
    const t = await translator('es', es);
    expect(importFailureText({ failure: '2 rows have problems; nothing was imported', failureCode: 'rows_invalid', errorRows: 2 }, t)).toBe(
      '2 filas con problemas: no se importó nada.',
    );
    expect(importFailureText({ failure: 'something new', failureCode: null, errorRows: 0 }, t)).toBe('something new');
    expect(importFailureText({ failure: 'from the future', failureCode: 'brand_new' as never, errorRows: 0 }, t)).toBe('from the future');
  });
});
