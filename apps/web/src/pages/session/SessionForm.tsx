import type { FormEvent, ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Message } from 'primereact/message';
import { useTranslation } from 'react-i18next';
import { LIMITS, PASSWORD_POLICY } from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { TextField } from '../../components/TextField';
import { useForm } from '../../components/useForm';
import { matches, passwordRules, required } from '../../validation/rules';

/** The parts of a `useForm` result one field needs. */
interface BoundForm<F extends string> {
  values: Record<F, string>;
  set(field: F): (value: string) => void;
  blur(field: F): () => void;
  errorFor(field: F): string | null;
}

/**
 * The session pages' form: its fields, then the failure of the last try (when there was one) and
 * the submit button, which shows the busy label and spins while the request runs.
 */
export function SessionForm({
  onSubmit,
  busy,
  failure,
  errorTestId,
  submitTestId,
  submitLabel,
  busyLabel,
  children,
}: {
  onSubmit(event: FormEvent): void;
  busy: boolean;
  /** The failed phase, or undefined when the last try did not fail. */
  failure: { error: unknown } | undefined;
  errorTestId: string;
  submitTestId: string;
  submitLabel: string;
  busyLabel: string;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <form className="session__form" noValidate onSubmit={onSubmit} aria-busy={busy}>
      {children}
      {failure && (
        <div className="form-error" role="alert" data-testid={errorTestId}>
          <i className="pi pi-times-circle" aria-hidden="true" />
          <span>{describeError(failure.error, t)}</span>
        </div>
      )}
      <Button
        type="submit"
        className="session__submit"
        data-testid={submitTestId}
        label={busy ? busyLabel : submitLabel}
        loading={busy}
        disabled={busy}
      />
    </form>
  );
}

/** One field of a `useForm` result, as a `TextField` takes it. */
function bound<F extends string>(form: BoundForm<F>, field: F) {
  return { value: form.values[field], onChange: form.set(field), onBlur: form.blur(field), error: form.errorFor(field) };
}

/** Where a field's value lives; `id` is also its test id. */
interface FieldProps<F extends string> {
  id: string;
  label: string;
  autoFocus?: boolean;
  form: BoundForm<F>;
  field: F;
}

/** A new password, with the password rule as its hint. */
export function NewPasswordField<F extends string>({ id, label, autoFocus, form, field }: FieldProps<F>) {
  const { t } = useTranslation();
  return (
    <TextField
      id={id}
      testId={id}
      label={label}
      type="password"
      icon="pi pi-lock"
      autoComplete="new-password"
      autoFocus={autoFocus}
      hint={t('auth.signup.passwordRule', { count: LIMITS.minPasswordLength, long: PASSWORD_POLICY.passphraseLength })}
      {...bound(form, field)}
    />
  );
}

/** An e-mail address. */
export function EmailField<F extends string>({ id, label, autoFocus, form, field }: FieldProps<F>) {
  return (
    <TextField
      id={id}
      testId={id}
      label={label}
      type="email"
      icon="pi pi-envelope"
      autoComplete="email"
      autoFocus={autoFocus}
      {...bound(form, field)}
    />
  );
}

/** A new password typed twice: the password rules, and a confirmation that must match it. */
export function usePasswordForm() {
  return useForm({ password: '', confirm: '' }, (values) => ({
    password: passwordRules,
    confirm: [required, matches(() => values.password)],
  }));
}

/** The fields of `usePasswordForm`, with the ids (and test ids) `<prefix>-password` and `<prefix>-confirm`. */
export function PasswordFields({
  prefix,
  passwordLabel,
  confirmLabel,
  form,
}: {
  prefix: string;
  passwordLabel: string;
  confirmLabel: string;
  form: BoundForm<'password' | 'confirm'>;
}) {
  return (
    <>
      <NewPasswordField id={`${prefix}-password`} label={passwordLabel} autoFocus form={form} field="password" />
      <TextField
        id={`${prefix}-confirm`}
        testId={`${prefix}-confirm`}
        label={confirmLabel}
        type="password"
        icon="pi pi-lock"
        autoComplete="new-password"
        {...bound(form, 'confirm')}
      />
    </>
  );
}

/** A spinner and what the page waits for. */
export function SessionWaiting({ testId, text }: { testId: string; text: string }) {
  return (
    <div className="session__waiting" role="status" data-testid={testId}>
      <span className="spinner spinner--sm" aria-hidden="true" />
      <span>{text}</span>
    </div>
  );
}

/**
 * The outcome a session page ends on (an error is an alert, anything else a status), and the link
 * to where the user goes next, when there is one.
 */
export function SessionNotice({
  severity,
  text,
  testId,
  link,
}: {
  severity: 'success' | 'info' | 'error';
  text: string;
  testId: string;
  link?: { to: string; label: string };
}) {
  const message = (
    <Message
      className="session__notice"
      severity={severity}
      text={text}
      data-testid={testId}
      role={severity === 'error' ? 'alert' : 'status'}
    />
  );
  if (!link) return message;
  return (
    <>
      {message}
      <Link to={link.to} className="p-button session__submit session__link-button">
        {link.label}
      </Link>
    </>
  );
}

/** The server could not be reached: why, and a button to try again. */
export function SessionUnreachable({ error, onRetry }: { error: unknown; onRetry(): void }) {
  const { t } = useTranslation();
  return (
    <>
      <Message className="session__notice" severity="error" text={describeError(error, t)} role="alert" />
      <Button className="session__submit" label={t('common.retry')} icon="pi pi-refresh" onClick={onRetry} />
    </>
  );
}
