import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { hasErrors, validate, type FieldError, type Rule } from '../validation/rules';

/**
 * Form values with validation that starts quietly: a field shows its message once the form was
 * submitted, or once it was left with something typed in it; then it follows every keystroke.
 */
export function useForm<F extends string>(initial: Record<F, string>, rules: (values: Record<F, string>) => Partial<Record<F, Rule[]>>) {
  const { t } = useTranslation();
  const [values, setValues] = useState(initial);
  const [touched, setTouched] = useState<Partial<Record<F, boolean>>>({});
  const [submitted, setSubmitted] = useState(false);

  const errors = validate(values, rules(values));
  const message = (error: FieldError | undefined) => (error ? t(`validation.${error.key}`, error.values) : null);

  const errorFor = (field: F) => (submitted || (touched[field] && values[field] !== '') ? message(errors[field]) : null);
  const set = useCallback((field: F) => (value: string) => setValues((v) => ({ ...v, [field]: value })), []);
  const blur = useCallback((field: F) => () => setTouched((v) => ({ ...v, [field]: true })), []);

  /** Marks the form submitted; true when every field is valid. */
  const submit = () => {
    setSubmitted(true);
    return !hasErrors(errors);
  };

  return { values, set, blur, errorFor, submit };
}
