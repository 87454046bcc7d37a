import { describe, expect, it } from '@jest/globals';
import { ApiError } from './api-error';
import { describeError, type Translate } from './error-text';

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
