import { describe, expect, it } from '@jest/globals';
import { SECRET_MASK } from '@centralita/contracts';
import { clearSecret, keepSecret, onSecretBlur, onSecretFocus, onSecretTyped, secretDraft, secretsBody } from './channel-secrets';

describe('channel secret editing', () => {
  it('keeps a stored secret when the box is focused and left empty', () => {
    const focused = onSecretFocus(secretDraft(SECRET_MASK));
    expect(focused.value).toBe('');
    expect(secretsBody({ botToken: onSecretBlur(focused, SECRET_MASK) })).toEqual({ botToken: SECRET_MASK });
  });

  it('sends an empty value (clear) after "clear", even once the box loses focus', () => {
    const cleared = onSecretBlur(onSecretFocus(clearSecret()), SECRET_MASK);
    expect(secretsBody({ botToken: cleared })).toEqual({ botToken: '' });
  });

  it('replaces with what is typed, and "keep" undoes a clear', () => {
    expect(secretsBody({ botToken: onSecretBlur(onSecretTyped('new-token'), SECRET_MASK) })).toEqual({ botToken: 'new-token' });
    expect(onSecretBlur(onSecretTyped(''), SECRET_MASK).value).toBe(SECRET_MASK);
    expect(keepSecret(SECRET_MASK)).toEqual({ value: SECRET_MASK, clearing: false });
  });

  it('leaves an unset secret empty', () => {
    expect(onSecretBlur(onSecretFocus(secretDraft('')), '')).toEqual({ value: '', clearing: false });
  });
});
