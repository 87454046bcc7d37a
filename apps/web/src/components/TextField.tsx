import { useState, type InputHTMLAttributes } from 'react';
import { InputText } from 'primereact/inputtext';
import { useTranslation } from 'react-i18next';
import { cx } from './cx';

interface TextFieldProps {
  id: string;
  label: string;
  value: string;
  onChange(value: string): void;
  onBlur?(): void;
  error?: string | null;
  hint?: string;
  type?: 'text' | 'email' | 'password';
  testId?: string;
  autoComplete?: InputHTMLAttributes<HTMLInputElement>['autoComplete'];
  autoFocus?: boolean;
  disabled?: boolean;
  icon?: string;
}

/** Label, input and its message; passwords get a show/hide toggle. */
export function TextField({
  id,
  label,
  value,
  onChange,
  onBlur,
  error,
  hint,
  type = 'text',
  testId,
  autoComplete,
  autoFocus,
  disabled,
  icon,
}: TextFieldProps) {
  const { t } = useTranslation();
  const [reveal, setReveal] = useState(false);
  const describedBy = [error ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(' ') || undefined;
  const inputType = type === 'password' && reveal ? 'text' : type;
  return (
    <div className={cx('field', error && 'field--invalid')}>
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <div className={cx('field__control', icon && 'field__control--icon', type === 'password' && 'field__control--password')}>
        {icon && <i className={cx('field__icon', icon)} aria-hidden="true" />}
        <InputText
          id={id}
          type={inputType}
          value={value}
          invalid={!!error}
          aria-invalid={!!error}
          aria-describedby={describedBy}
          autoComplete={autoComplete}
          autoFocus={autoFocus}
          disabled={disabled}
          data-testid={testId}
          onChange={(event) => onChange(event.target.value)}
          onBlur={onBlur}
        />
        {type === 'password' && (
          <button
            type="button"
            className="field__reveal"
            aria-label={reveal ? t('auth.signin.hidePassword') : t('auth.signin.showPassword')}
            aria-pressed={reveal}
            onClick={() => setReveal((v) => !v)}
          >
            <i className={reveal ? 'pi pi-eye-slash' : 'pi pi-eye'} aria-hidden="true" />
          </button>
        )}
      </div>
      {/* The message line is always there, so a message appearing never moves the form. */}
      <div className="field__message">
        {error ? (
          <small id={`${id}-error`} className="field__error" data-testid={testId ? `${testId}-error` : undefined} aria-live="polite">
            {error}
          </small>
        ) : (
          hint && (
            <small id={`${id}-hint`} className="field__hint">
              {hint}
            </small>
          )
        )}
      </div>
    </div>
  );
}
