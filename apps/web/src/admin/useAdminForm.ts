import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { RuleIssue } from '@centralita/contracts';
import { fieldErrorTexts } from '../api/error-text';
import { issuesByField } from './admin-logic';

/**
 * Form state for admin forms, validated with the same shared rules the server runs. A field shows
 * its message once the form was submitted or the field was left; server issues show until edited,
 * in the user's language (the API's rule or message key, translated; see api/error-text.ts).
 */
export function useAdminForm<V extends Record<string, unknown>>(initial: V, validate: (values: V) => RuleIssue[]) {
  const { t } = useTranslation();
  const [values, setValues] = useState<V>(initial);
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});

  const issues = useMemo(() => issuesByField(validate(values)), [validate, values]);

  const set = useCallback(
    <K extends keyof V>(field: K) =>
      (value: V[K]) => {
        setValues((v) => ({ ...v, [field]: value }));
        setServerErrors((s) => {
          if (!(field in s)) return s;
          const { [field as string]: _dropped, ...rest } = s;
          return rest;
        });
      },
    [],
  );
  const blur = useCallback((field: keyof V) => () => setTouched((v) => ({ ...v, [field]: true })), []);

  const errorFor = (field: keyof V & string): string | null => {
    const server = serverErrors[field];
    if (server) return server;
    const issue = submitted || touched[field] ? issues[field] : undefined;
    return issue ? t(`validation.${issue.key}`, issue.values) : null;
  };

  return {
    values,
    setValues,
    set,
    blur,
    errorFor,
    /** Marks the form submitted; true when the shared rules pass. */
    submit: () => {
      setSubmitted(true);
      return Object.keys(issues).length === 0;
    },
    showServerIssues: (list: RuleIssue[]) =>
      setServerErrors(
        Object.fromEntries(
          Object.entries(issuesByField(list)).map(([field, issue]) => [field, t(`validation.${issue.key}`, issue.values)]),
        ),
      ),
    /** Shows under each field what the API refused in it (DTO rules, shared rules, or a keyed refusal naming the field). */
    showServerError: (error: unknown) => setServerErrors(fieldErrorTexts(error, t)),
  };
}

export type AdminFormApi<V extends Record<string, unknown>> = ReturnType<typeof useAdminForm<V>>;
