import { describe, expect, it } from '@jest/globals';
import { email, matches, minLength, required, validate } from './rules';

describe('validation rules', () => {
  it('requires a non-blank value', () => {
    expect(required('   ')).toEqual({ key: 'required' });
  });

  it('accepts a well-formed email', () => {
    expect(email('ana.perez@example.co')).toBeNull();
  });

  it.each(['ana', 'ana@', 'ana@example', 'ana @example.com'])('rejects %s as an email', (value) => {
    expect(email(value)).toEqual({ key: 'email' });
  });

  it('leaves an empty email to the required rule', () => {
    expect(email('')).toBeNull();
  });

  it('reports the minimum length it wants', () => {
    expect(minLength(8)('short')).toEqual({ key: 'minLength', values: { count: 8 } });
  });

  it('flags a confirmation that differs', () => {
    expect(matches(() => 'secret-one')('secret-two')).toEqual({ key: 'passwordsMismatch' });
  });

  it('keeps only the first failing rule per field', () => {
    expect(validate({ email: '' }, { email: [required, email] })).toEqual({ email: { key: 'required' } });
  });

  it('answers no errors for valid input', () => {
    expect(
      validate({ email: 'a@b.co', password: 'long-enough' }, { email: [required, email], password: [required, minLength(8)] }),
    ).toEqual({});
  });
});
