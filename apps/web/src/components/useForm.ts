import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fieldErrorTexts } from '../api/error-text';
import { hasErrors, validate, type FieldError, type Rule } from '../validation/rules';

/**
 * Form values with validation that starts quietly: a field shows its message once the form was
 * submitted, or once it was left with something typed in it; then it follows every keystroke.
 * What the API refused in a field (showServerError) shows under it, translated, until it is edited.
 */
export function useForm<F extends string>(initial: Record<F, string>, rules: (values: Record<F, string>) => Partial<Record<F, Rule[]>>) {
  const { t } = useTranslation();
  const [values, setValues] = useState(initial);
  const [touched, setTouched] = useState<Partial<Record<F, boolean>>>({});
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<Partial<Record<F, string>>>({});

  const errors = validate(values, rules(values));
  const message = (error: FieldError | undefined) => (error ? t(`validation.${error.key}`, error.values) : null);

  const errorFor = (field: F) =>
    serverErrors[field] ?? (submitted || (touched[field] && values[field] !== '') ? message(errors[field]) : null);
  const set = useCallback(
    (field: F) => (value: string) => {
      setValues((v) => ({ ...v, [field]: value }));
      setServerErrors((s) => (field in s ? { ...s, [field]: undefined } : s));
    },
    [],
  );
  const blur = useCallback((field: F) => () => setTouched((v) => ({ ...v, [field]: true })), []);

  /** Marks the form submitted; true when every field is valid. */
  const submit = () => {
    setSubmitted(true);
    return !hasErrors(errors);
  };

  /** Shows under each field of this form what the API refused in it, in the user's language. */
  const showServerError = (error: unknown) => setServerErrors(fieldErrorTexts(error, t) as Partial<Record<F, string>>);

  return { values, set, blur, errorFor, submit, showServerError };
}
