import { importErrorCsv } from './import-error-file';

const rows = (csv: string) => csv.trimEnd().split('\r\n');

describe(importErrorCsv.name, () => {
  const errors = [
    { line: 3, value: '888-7777', reason: 'phone must have at least 8 digits', code: 'digits' as const },
    { line: 4, value: '+50688887777', reason: 'duplicate of line 2', code: 'duplicate' as const, first: 2 },
    { line: 5, value: '', reason: 'phone is required', code: 'required' as const },
  ];

  it('writes headers and reasons in Spanish', () => {
    expect(rows(importErrorCsv({ errors, failure: null, failureCode: null }, 'es'))).toEqual([
      '"Línea","Valor","Problema"',
      '3,"888-7777","El teléfono debe tener al menos 8 dígitos"',
      '4,"\'+50688887777","Repite la línea 2"',
      '5,"","Falta el teléfono"',
    ]);
  });

  it('writes them in Russian, and reads the codes back from reasons stored before rows had one', () => {
    const stored = errors.map(({ line, value, reason }) => ({ line, value, reason }));
    expect(rows(importErrorCsv({ errors: stored, failure: null, failureCode: null }, 'ru'))).toEqual([
      '"Строка","Значение","Проблема"',
      '3,"888-7777","Телефон должен содержать не менее 8 цифр"',
      '4,"\'+50688887777","Повтор строки 2"',
      '5,"","Не указан телефон"',
    ]);
  });

  it("says why a whole file was refused in the user's language, with the limit it broke", () => {
    const tooBig = importErrorCsv({ errors: [], failure: 'The file is larger than 5 MB', failureCode: 'too_large' }, 'en');
    expect(rows(tooBig)[1]).toBe(',,"The file is larger than 5 MB."');
    const formulas = importErrorCsv({ errors: [], failure: 'formulas', failureCode: 'formulas' }, 'es');
    expect(rows(formulas)[1]).toBe(',,"El archivo contiene fórmulas; exporte solo valores y vuelva a intentarlo."');
    expect(rows(importErrorCsv({ errors: [], failure: 'Legacy refusal', failureCode: null }, 'de'))[1]).toBe(',,"Legacy refusal"');
  });
});
