import type { ReactNode } from 'react';
import { Calendar } from 'primereact/calendar';
import { Checkbox } from 'primereact/checkbox';
import { Dropdown } from 'primereact/dropdown';
import { InputNumber } from 'primereact/inputnumber';
import { InputText } from 'primereact/inputtext';
import { InputTextarea } from 'primereact/inputtextarea';
import { MultiSelect } from 'primereact/multiselect';
import { Password } from 'primereact/password';
import { cx } from '../components/cx';
import { fromIsoDate, toIsoDate } from './admin-logic';

interface FieldShellProps {
  id: string;
  label: string;
  error?: string | null;
  hint?: ReactNode;
  children: ReactNode;
  wide?: boolean;
}

/** Label, control and the message line (always present, so messages never move the form). */
export function FieldShell({ id, label, error, hint, children, wide }: FieldShellProps) {
  return (
    <div className={cx('field', 'admin-field', wide && 'admin-field--wide', error && 'field--invalid')}>
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <div className="field__control">{children}</div>
      <div className="field__message">
        {error ? (
          <small id={`${id}-error`} className="field__error" data-testid={`${id}-error`} aria-live="polite">
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

interface BaseProps {
  id: string;
  label: string;
  error?: string | null;
  hint?: ReactNode;
  onBlur?(): void;
  wide?: boolean;
}

export function TextInput(
  props: BaseProps & {
    value: string;
    onChange(value: string): void;
    type?: 'text' | 'email' | 'url';
    maxLength?: number;
    /** Shown but not editable (a value someone else sets). */
    disabled?: boolean;
  },
) {
  return (
    <FieldShell {...props}>
      <InputText
        id={props.id}
        data-testid={props.id}
        type={props.type ?? 'text'}
        value={props.value}
        maxLength={props.maxLength}
        disabled={props.disabled}
        invalid={!!props.error}
        aria-invalid={!!props.error}
        onChange={(event) => props.onChange(event.target.value)}
        onBlur={props.onBlur}
      />
    </FieldShell>
  );
}

export function PasswordInput(props: BaseProps & { value: string; onChange(value: string): void }) {
  return (
    <FieldShell {...props}>
      <Password
        inputId={props.id}
        pt={{ input: { 'data-testid': props.id } as never }}
        value={props.value}
        feedback={false}
        toggleMask
        autoComplete="new-password"
        invalid={!!props.error}
        onChange={(event) => props.onChange(event.target.value)}
        onBlur={props.onBlur}
        className="admin-password"
      />
    </FieldShell>
  );
}

export function TextArea(props: BaseProps & { value: string; onChange(value: string): void; rows?: number }) {
  return (
    <FieldShell {...props}>
      <InputTextarea
        id={props.id}
        data-testid={props.id}
        value={props.value}
        rows={props.rows ?? 4}
        autoResize
        invalid={!!props.error}
        aria-invalid={!!props.error}
        onChange={(event) => props.onChange(event.target.value)}
        onBlur={props.onBlur}
      />
    </FieldShell>
  );
}

export function NumberInput(props: BaseProps & { value: number | null; onChange(value: number | null): void; min?: number; max?: number }) {
  return (
    <FieldShell {...props}>
      <InputNumber
        inputId={props.id}
        pt={{ input: { root: { 'data-testid': props.id } } } as never}
        value={props.value}
        useGrouping={false}
        invalid={!!props.error}
        onValueChange={(event) => props.onChange(event.value ?? null)}
        onBlur={props.onBlur}
      />
    </FieldShell>
  );
}

/** `disabled` locks the box; `title` then says why (shown on hover and read by screen readers). */
export function CheckInput(props: {
  id: string;
  label: string;
  checked: boolean;
  onChange(value: boolean): void;
  disabled?: boolean;
  title?: string;
}) {
  return (
    <div className="admin-check" title={props.title}>
      <Checkbox
        inputId={props.id}
        data-testid={props.id}
        checked={props.checked}
        disabled={props.disabled}
        aria-description={props.title}
        onChange={(event) => props.onChange(!!event.checked)}
      />
      <label htmlFor={props.id}>{props.label}</label>
    </div>
  );
}

export interface Option {
  value: string;
  label: string;
  /** Shown but not selectable (e.g. a role the caller may not give). */
  disabled?: boolean;
}

export function SelectInput(props: BaseProps & { value: string; options: Option[]; onChange(value: string): void; placeholder?: string }) {
  return (
    <FieldShell {...props}>
      <Dropdown
        inputId={props.id}
        data-testid={props.id}
        value={props.value || null}
        options={props.options}
        optionLabel="label"
        optionValue="value"
        optionDisabled="disabled"
        // PrimeReact greys a disabled option but does not say so to assistive technology.
        pt={{ item: (options) => ({ 'aria-disabled': options?.context.disabled || undefined }) }}
        placeholder={props.placeholder}
        invalid={!!props.error}
        onChange={(event) => props.onChange((event.value as string | null) ?? '')}
        onBlur={props.onBlur}
        className="admin-select"
      />
    </FieldShell>
  );
}

export function MultiSelectInput(
  props: BaseProps & { value: string[]; options: Option[]; onChange(value: string[]): void; placeholder?: string },
) {
  return (
    <FieldShell {...props}>
      <MultiSelect
        inputId={props.id}
        data-testid={props.id}
        value={props.value}
        options={props.options}
        optionLabel="label"
        optionValue="value"
        optionDisabled="disabled"
        placeholder={props.placeholder}
        display="chip"
        filter
        onChange={(event) => props.onChange((event.value as string[]) ?? [])}
        className="admin-select"
      />
    </FieldShell>
  );
}

/** A calendar date shown DD-MM-YYYY (spec §9) and kept as 'YYYY-MM-DD', the shape the API and the shared rules use. */
export function DateInput(props: BaseProps & { value: string; onChange(value: string): void }) {
  return (
    <FieldShell {...props}>
      <Calendar
        inputId={props.id}
        pt={{ input: { root: { 'data-testid': props.id } } } as never}
        value={fromIsoDate(props.value)}
        dateFormat="dd-mm-yy"
        showIcon
        showButtonBar
        invalid={!!props.error}
        onChange={(event) => props.onChange(toIsoDate(event.value as Date | null | undefined))}
        onBlur={props.onBlur}
        className="admin-date"
      />
    </FieldShell>
  );
}
