import { LIMITS } from '@centralita/contracts';

/** A failed rule: an i18n key under `validation.` and its interpolation values. */
export interface FieldError {
  key: 'required' | 'email' | 'minLength' | 'passwordsMismatch';
  values?: Record<string, string | number>;
}

export type Rule = (value: string) => FieldError | null;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;

export const required: Rule = (value) => (value.trim() === '' ? { key: 'required' } : null);
export const email: Rule = (value) => (value.trim() !== '' && !EMAIL.test(value.trim()) ? { key: 'email' } : null);
export const minLength =
  (count: number): Rule =>
  (value) =>
    value !== '' && value.length < count ? { key: 'minLength', values: { count } } : null;
export const matches =
  (other: () => string): Rule =>
  (value) =>
    value !== '' && value !== other() ? { key: 'passwordsMismatch' } : null;

export const passwordRules: Rule[] = [required, minLength(LIMITS.minPasswordLength)];

/** Runs each field's rules in order and keeps the first failure per field. */
export function validate<F extends string>(values: Record<F, string>, rules: Partial<Record<F, Rule[]>>): Partial<Record<F, FieldError>> {
  const errors: Partial<Record<F, FieldError>> = {};
  for (const field of Object.keys(rules) as F[]) {
    for (const rule of rules[field] ?? []) {
      const error = rule(values[field] ?? '');
      if (error) {
        errors[field] = error;
        break;
      }
    }
  }
  return errors;
}

export function hasErrors(errors: Record<string, unknown>): boolean {
  return Object.values(errors).some(Boolean);
}
