import { describe, expect, it } from '@jest/globals';
import i18next from 'i18next';
import { LANGUAGES } from '@centralita/contracts';
import { DICTIONARIES } from '../i18n/resources';
import { ApiError } from './api-error';
import { describeError, fieldErrorTexts, type Translate } from './error-text';

const t: Translate = (key, options) => (options ? `${key}:${JSON.stringify(options)}` : key);

describe(describeError.name, () => {
  it('translates a catalogue message through its catalogue key', () => {
    expect(describeError(new ApiError('Invalid credentials', { status: 401, kind: 'http' }), t)).toBe('catalogue.401');
  });

  it('prefers the translated code for codes that say more than the message', () => {
    expect(describeError(new ApiError('Too many requests', { status: 429, code: 'rate_limited', kind: 'http' }), t)).toBe(
      'errors.rate_limited',
    );
  });

  it('names the permissions a grant refusal lacks, in the user language', () => {
    const refusal = new ApiError('You cannot give the role ADMIN: it has permissions you do not hold: roles.manage, audit.view.', {
      status: 403,
      code: 'forbidden',
      kind: 'http',
      data: { reason: 'grant_exceeds_granter', action: 'assign', roleCode: 'ADMIN', missingPermissions: ['roles.manage', 'audit.view'] },
    });
    expect(describeError(refusal, t)).toBe('errors.grantExceedsGranter:{"permissions":"roles.manage, audit.view"}');
    expect(describeError(new ApiError('Forbidden', { status: 403, code: 'forbidden', kind: 'http', data: { reason: 'other' } }), t)).toBe(
      'errors.forbidden',
    );
  });

  it('translates a network failure with its cause', () => {
    expect(describeError(new ApiError('Error, Failed to fetch', { kind: 'network', detail: 'Failed to fetch' }), t)).toBe(
      'errors.network:{"cause":"Failed to fetch"}',
    );
  });

  it('keeps a validation message that names the field', () => {
    expect(describeError(new ApiError('email must be an email', { status: 400, code: 'validation', kind: 'http' }), t)).toBe(
      'email must be an email',
    );
  });

  it('translates the demo backend messages', () => {
    expect(describeError({ message: 'User already exists!' }, t)).toBe('demoErrors.userExists');
  });

  it('falls back to the generic catalogue message when there is nothing to say', () => {
    expect(describeError(new Error(''), t)).toBe('catalogue.generic');
  });
});

describe('describeError in the user language', () => {
  const translator = async (lng: 'es' | 'en' | 'ru'): Promise<Translate> => {
    const instance = i18next.createInstance();
    await instance.init({
      resources: Object.fromEntries(LANGUAGES.map((code) => [code, { translation: DICTIONARIES[code] }])),
      lng,
      interpolation: { escapeValue: false },
      initAsync: false,
    });
    return (key, options) => instance.t(key, options as Record<string, unknown>) as string;
  };
  const refused = (data: unknown, message = 'name must be shorter than or equal to 5 characters') =>
    new ApiError(message, { status: 400, code: 'validation', kind: 'http', data });
  const dtoIssues = {
    fields: { name: ['name must be shorter than or equal to 5 characters'], email: ['email must be an email'] },
    issues: [
      { field: 'name', rule: 'maxLength', params: { max: 5 } },
      { field: 'email', rule: 'isEmail' },
    ],
  };

  it.each([
    ['es', 'Nombre: Como máximo 5 caracteres. Correo electrónico: Ingrese un correo electrónico válido.'],
    ['en', 'Name: At most 5 characters. Email: Enter a valid email address.'],
    ['ru', 'Имя: Не более 5 символов. Электронная почта: Введите корректный адрес электронной почты.'],
  ] as const)('words DTO issues field by field in %s', async (lng, expected) => {
    expect(describeError(refused(dtoIssues), await translator(lng))).toBe(expected);
  });

  it('agrees the counted word with the number (i18next plurals)', async () => {
    const ru = await translator('ru');
    const oneChar = refused({ issues: [{ field: 'code', rule: 'maxLength', params: { max: 1 } }] });
    const threeChars = refused({ issues: [{ field: 'code', rule: 'maxLength', params: { max: 3 } }] });
    expect(describeError(oneChar, ru)).toBe('Код: Не более 1 символа.');
    expect(describeError(threeChars, ru)).toBe('Код: Не более 3 символов.');
  });

  it("uses the form's own label, else a humanised field name", async () => {
    const es = await translator('es');
    const error = refused({ issues: [{ field: 'allowedChatsPerAgent', rule: 'min', params: { min: 1 } }] });
    expect(describeError(error, es)).toBe('Allowed chats per agent: Debe ser 1 o más.');
    expect(describeError(error, es, { fieldLabel: (field) => (field === 'allowedChatsPerAgent' ? 'Chats por agente' : undefined) })).toBe(
      'Chats por agente: Debe ser 1 o más.',
    );
  });

  it('names the expected format of a pattern field it knows, else says the format is not valid', async () => {
    const wsUrl = refused({ issues: [{ field: 'wsUrl', rule: 'matches', params: {} }] }, 'wsUrl must be a ws:// or wss:// URL');
    expect(describeError(wsUrl, await translator('en'))).toBe('WebSocket URL: Must be a ws:// or wss:// URL.');
    expect(describeError(wsUrl, await translator('es'))).toBe('URL de WebSocket: Debe ser una URL ws:// o wss://.');
    expect(describeError(wsUrl, await translator('ru'))).toBe('Адрес WebSocket: Должен быть URL ws:// или wss://.');
    const other = refused({ issues: [{ field: 'code', rule: 'matches', params: {} }] }, 'code must match /x/');
    expect(describeError(other, await translator('en'))).toBe('Code: The format is not valid.');
  });

  it('words the shared admin rules and lists of allowed values', async () => {
    const en = await translator('en');
    expect(describeError(refused({ issues: [{ field: 'name', key: 'required' }] }), en)).toBe('Name: This field is required.');
    expect(describeError(refused({ issues: [{ field: 'order', rule: 'isIn', params: { values: ['asc', 'desc'] } }] }), en)).toBe(
      'Order: Choose one of: asc, desc.',
    );
  });

  it("keeps the server's words only for a rule it cannot translate", async () => {
    const es = await translator('es');
    const error = refused(
      { fields: { shape: ['shape must be a hexagon'] }, issues: [{ field: 'shape', rule: 'isHexagon' }] },
      'shape must be a hexagon',
    );
    expect(describeError(error, es)).toBe('Shape: shape must be a hexagon');
  });

  it.each([
    ['es', 'Otra campaña ya usa este identificador.'],
    ['en', 'Another campaign already uses this identifier.'],
    ['ru', 'Этот идентификатор уже использует другая кампания.'],
  ] as const)('translates a keyed refusal through apiMessages in %s, and puts it on the field it names', async (lng, expected) => {
    const t = await translator(lng);
    const conflict = new ApiError('identifier is already used by another campaign', {
      status: 409,
      code: 'conflict',
      kind: 'http',
      data: { fields: { identifier: ['identifier is already used by another campaign'] }, messageKey: 'campaignIdentifierTaken' },
    });
    expect(describeError(conflict, t)).toBe(expected);
    expect(fieldErrorTexts(conflict, t)).toEqual({ identifier: expected });
  });

  it('interpolates the values of a keyed refusal and falls back to the server for an unknown key', async () => {
    const en = await translator('en');
    const sort = refused(
      { messageKey: 'unknownSortField', messageParams: { options: 'name, createdAt' } },
      'sortField must be one of name, createdAt',
    );
    expect(describeError(sort, en)).toBe('This list cannot be sorted by that column. Choose one of: name, createdAt.');
    expect(describeError(refused({ messageKey: 'somethingNew' }, 'Something new went wrong'), en)).toBe('Something new went wrong');
  });

  it('gives each refused field its own translated sentence for the form', async () => {
    expect(fieldErrorTexts(refused(dtoIssues), await translator('es'))).toEqual({
      name: 'Como máximo 5 caracteres.',
      email: 'Ingrese un correo electrónico válido.',
    });
  });
});
