import { useMemo, useState, type FormEvent } from 'react';
import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import { Dropdown } from 'primereact/dropdown';
import { InputSwitch } from 'primereact/inputswitch';
import { InputText } from 'primereact/inputtext';
import { Tag } from 'primereact/tag';
import { useTranslation } from 'react-i18next';
import type { ChannelAccountView, ChannelKindView, MessagingKind, OptionItem } from '@centralita/contracts';
import { isApiError } from '../../api/api-error';
import { describeError } from '../../api/error-text';
import { FieldShell } from '../fields';
import {
  EXTERNAL_ID_KIND,
  checkOutcome,
  createBody,
  credentialFields,
  draftOf,
  emptyDraft,
  issuesAtFields,
  offeredKinds,
  updateBody,
  validateDraft,
  type AccountDraft,
  type CredentialField,
  type FieldProblem,
} from './channel-accounts-logic';
import { ChannelBadge, useKindLabel } from './ChannelBadge';
import type { ChannelsApi, ConnectionCheck } from './channels-api';

interface AccountDialogProps {
  api: ChannelsApi;
  kinds: ChannelKindView[];
  lines: OptionItem[];
  /** null: connect a new account. */
  account: ChannelAccountView | null;
  onSaved(account: ChannelAccountView, created: boolean): void;
  /** A connection test ran (the list reloads to show the account's new last check). */
  onChecked(): void;
  onClose(): void;
}

/**
 * Connect or edit one account: pick the channel, fill the credentials its kind asks for (secrets
 * write-only: empty keeps the stored one), choose the line it feeds; once saved, the webhook URL and
 * verify token to paste at the provider, and "Test connection" with the provider's answer.
 */
export function AccountDialog(props: AccountDialogProps) {
  const { t } = useTranslation();
  const kindLabel = useKindLabel();
  const [saved, setSaved] = useState<ChannelAccountView | null>(props.account);
  const [draft, setDraft] = useState<AccountDraft>(() => (props.account ? draftOf(props.account) : emptyDraft()));
  // After connecting, the dialog turns into the "paste this at the provider" step.
  const [step, setStep] = useState<'form' | 'connected'>('form');
  const kind = props.kinds.find((entry) => entry.kind === draft.kind) ?? null;
  const editing = saved !== null;

  const title =
    step === 'connected'
      ? t('channels.dialog.connectedTitle', { channel: kindLabel(draft.kind ?? '') })
      : editing
        ? t('channels.dialog.editTitle', { name: saved.name })
        : t('channels.dialog.connectTitle');

  return (
    <Dialog
      visible
      header={title}
      onHide={props.onClose}
      style={{ width: 'min(46rem, 96vw)' }}
      className="channels-dialog"
      data-testid="channel-account-dialog"
      dismissableMask={false}
    >
      {!draft.kind ? (
        <KindPicker kinds={props.kinds} onPick={(picked) => setDraft(emptyDraft(picked))} />
      ) : step === 'connected' && saved ? (
        <>
          <WebhookPanel api={props.api} account={saved} onChecked={props.onChecked} />
          <div className="admin-confirm__footer">
            <Button label={t('channels.dialog.done')} icon="pi pi-check" onClick={props.onClose} data-testid="channel-dialog-done" />
          </div>
        </>
      ) : (
        <AccountForm
          api={props.api}
          kind={kind}
          lines={props.lines}
          account={saved}
          draft={draft}
          setDraft={setDraft}
          onBack={editing ? null : () => setDraft(emptyDraft())}
          onCancel={props.onClose}
          onSaved={(view) => {
            props.onSaved(view, !editing);
            // An edit is done once saved; a new account goes on to the webhook step.
            if (editing) return props.onClose();
            setStep('connected');
            setSaved(view);
            setDraft(draftOf(view));
          }}
        />
      )}
      {editing && step === 'form' && saved && (
        <details className="channels-dialog__webhook" open={!saved.lastEventAt}>
          <summary>{t('channels.webhook.title')}</summary>
          <WebhookPanel api={props.api} account={saved} onChecked={props.onChecked} />
        </details>
      )}
    </Dialog>
  );
}

function KindPicker({ kinds, onPick }: { kinds: ChannelKindView[]; onPick(kind: MessagingKind): void }) {
  const { t } = useTranslation();
  const offered = offeredKinds(kinds);
  return (
    <div>
      <p className="muted">{t('channels.dialog.pickKind')}</p>
      <div className="channels-dialog__kinds" role="list">
        {offered.map((kind) => (
          <button
            key={kind.kind}
            type="button"
            role="listitem"
            className="channels-dialog__kind"
            onClick={() => onPick(kind.kind)}
            data-testid={`channel-kind-${kind.kind}`}
          >
            <ChannelBadge kind={kind.kind} />
            <small className="muted">{t(`channels.kinds.${kind.kind}`)}</small>
          </button>
        ))}
      </div>
      {offered.length === 0 && <p className="form-error">{t('channels.dialog.noKinds')}</p>}
    </div>
  );
}

interface AccountFormProps {
  api: ChannelsApi;
  kind: ChannelKindView | null;
  lines: OptionItem[];
  account: ChannelAccountView | null;
  draft: AccountDraft;
  setDraft(update: (draft: AccountDraft) => AccountDraft): void;
  onBack: (() => void) | null;
  onCancel(): void;
  onSaved(account: ChannelAccountView): void;
}

function AccountForm({ api, kind, lines, account, draft, setDraft, onBack, onCancel, onSaved }: AccountFormProps) {
  const { t } = useTranslation();
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, FieldProblem>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const errors = useMemo(() => validateDraft(draft, kind, account), [draft, kind, account]);
  const fields = kind ? credentialFields(kind, account) : [];
  const externalIdName = draft.kind ? EXTERNAL_ID_KIND[draft.kind] : 'accountId';

  const problemText = (problem: FieldProblem) => ('message' in problem ? problem.message : t(`validation.${problem.key}`, problem.values));
  const errorFor = (field: string): string | null => {
    const problem: FieldProblem | undefined = serverErrors[field] ?? (submitted || touched[field] ? errors[field] : undefined);
    return problem ? problemText(problem) : null;
  };
  const edit = (field: string, apply: (draft: AccountDraft) => AccountDraft) => {
    setDraft(apply);
    setServerErrors((held) => {
      if (!(field in held)) return held;
      const { [field]: _edited, ...rest } = held;
      return rest;
    });
  };
  const blur = (field: string) => () => setTouched((held) => ({ ...held, [field]: true }));

  const save = async (event?: FormEvent) => {
    event?.preventDefault();
    setSubmitted(true);
    if (!kind || Object.keys(errors).length > 0) return;
    setSaving(true);
    setFailure(null);
    try {
      onSaved(account ? await api.update(account.id, updateBody(draft, kind)) : await api.create(createBody(draft, kind)));
    } catch (error) {
      if (isApiError(error) && error.status === 409) {
        setServerErrors({ externalAccountId: { field: 'externalAccountId', key: 'duplicate' } });
        setFailure(t('channels.dialog.duplicate', { id: draft.externalAccountId.trim() }));
      } else if (isApiError(error) && error.code === 'validation') {
        const { fields: placed, unplaced } = issuesAtFields(error.data, kind);
        setServerErrors(placed);
        // A problem the form has no field for is told with the API's own sentence, which names it.
        setFailure(unplaced.length || Object.keys(placed).length === 0 ? describeError(error, t) : null);
      } else {
        setFailure(describeError(error, t));
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="channels-dialog__form" noValidate onSubmit={(event) => void save(event)} data-testid="channel-account-form">
      <div className="channels-dialog__kindline">
        {draft.kind && <ChannelBadge kind={draft.kind} />}
        {onBack && (
          <Button type="button" label={t('channels.dialog.changeKind')} icon="pi pi-arrow-left" text size="small" onClick={onBack} />
        )}
      </div>
      <div className="admin-form__grid">
        <FieldShell id="channel-account-name" label={t('channels.fields.name')} hint={t('channels.hints.name')} error={errorFor('name')}>
          <InputText
            id="channel-account-name"
            data-testid="channel-account-name"
            value={draft.name}
            maxLength={120}
            invalid={!!errorFor('name')}
            onChange={(event) => edit('name', (d) => ({ ...d, name: event.target.value }))}
            onBlur={blur('name')}
          />
        </FieldShell>
        <FieldShell
          id="channel-account-external-id"
          label={t(`channels.externalId.${externalIdName}.label`)}
          hint={t(`channels.externalId.${externalIdName}.help`)}
          error={errorFor('externalAccountId')}
        >
          <InputText
            id="channel-account-external-id"
            data-testid="channel-account-external-id"
            value={draft.externalAccountId}
            maxLength={200}
            invalid={!!errorFor('externalAccountId')}
            onChange={(event) => edit('externalAccountId', (d) => ({ ...d, externalAccountId: event.target.value }))}
            onBlur={blur('externalAccountId')}
          />
        </FieldShell>
        <FieldShell
          id="channel-account-line"
          label={t('channels.fields.attentionLine')}
          hint={lines.length ? t('channels.hints.attentionLine') : t('channels.hints.noLines')}
          error={errorFor('attentionLineId')}
        >
          <Dropdown
            inputId="channel-account-line"
            data-testid="channel-account-line"
            value={draft.attentionLineId || null}
            options={lines}
            optionLabel="name"
            optionValue="id"
            filter={lines.length > 8}
            placeholder={t('channels.hints.pickLine')}
            invalid={!!errorFor('attentionLineId')}
            onChange={(event) => edit('attentionLineId', (d) => ({ ...d, attentionLineId: (event.value as string | null) ?? '' }))}
            onBlur={blur('attentionLineId')}
          />
        </FieldShell>
        <div className="field admin-field channels-dialog__enabled">
          <label htmlFor="channel-account-enabled" className="field__label">
            {t('channels.fields.enabled')}
          </label>
          <div className="field__control">
            <InputSwitch
              inputId="channel-account-enabled"
              checked={draft.enabled}
              onChange={(event) => edit('enabled', (d) => ({ ...d, enabled: !!event.value }))}
              data-testid="channel-account-enabled"
            />
          </div>
          <div className="field__message">
            <small className="field__hint">{t('channels.hints.enabled')}</small>
          </div>
        </div>
        {fields.map((field) => (
          <CredentialInput
            key={`${field.secret ? 'secret' : 'setting'}-${field.name}`}
            field={field}
            value={(field.secret ? draft.secrets : draft.settings)[field.name] ?? ''}
            error={errorFor(`${field.secret ? 'secrets' : 'settings'}.${field.name}`)}
            onBlur={blur(`${field.secret ? 'secrets' : 'settings'}.${field.name}`)}
            onChange={(value) =>
              edit(`${field.secret ? 'secrets' : 'settings'}.${field.name}`, (d) =>
                field.secret
                  ? { ...d, secrets: { ...d.secrets, [field.name]: value } }
                  : { ...d, settings: { ...d.settings, [field.name]: value } },
              )
            }
          />
        ))}
      </div>
      {failure && (
        <div className="form-error" role="alert" data-testid="channel-account-failure">
          <i className="pi pi-times-circle" aria-hidden="true" />
          <span>{failure}</span>
        </div>
      )}
      <div className="admin-confirm__footer">
        <Button type="button" label={t('admin.form.cancel')} text onClick={onCancel} data-testid="channel-account-cancel" />
        <Button
          type="submit"
          label={account ? t('admin.form.save') : t('channels.dialog.connect')}
          icon="pi pi-check"
          loading={saving}
          data-testid="channel-account-save"
        />
      </div>
    </form>
  );
}

function CredentialInput(props: {
  field: CredentialField;
  value: string;
  error: string | null;
  onChange(value: string): void;
  onBlur(): void;
}) {
  const { t } = useTranslation();
  const { field } = props;
  const id = `channel-account-${field.secret ? 'secret' : 'setting'}-${field.name}`;
  const label = field.known ? t(`channels.credentials.${field.name}.label`) : field.name;
  const help = field.known ? t(`channels.credentials.${field.name}.help`) : null;
  const hint = field.secret && field.stored ? t('channels.hints.secretStored') : help;
  return (
    <FieldShell id={id} label={label} hint={hint} error={props.error}>
      <span className="channels-dialog__credential">
        {field.secret && <i className="pi pi-lock muted" aria-hidden="true" />}
        <InputText
          id={id}
          data-testid={id}
          type={field.secret ? 'password' : 'text'}
          autoComplete={field.secret ? 'new-password' : 'off'}
          value={props.value}
          placeholder={field.secret && field.stored ? t('channels.hints.secretKeep') : undefined}
          invalid={!!props.error}
          aria-invalid={!!props.error}
          aria-describedby={help && field.secret && field.stored ? `${id}-hint` : undefined}
          onChange={(event) => props.onChange(event.target.value)}
          onBlur={props.onBlur}
        />
        {field.secret && field.stored && <Tag value={t('channels.hints.secretSet')} severity="success" data-testid={`${id}-set`} />}
      </span>
    </FieldShell>
  );
}

/** What to paste at the provider, with copy buttons, the provider's steps, and the connection test. */
function WebhookPanel({ api, account, onChecked }: { api: ChannelsApi; account: ChannelAccountView; onChecked(): void }) {
  const { t } = useTranslation();
  const kindLabel = useKindLabel();
  const [checking, setChecking] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const tokenKey = account.kind === 'telegram' ? 'telegram' : account.kind === 'twitter' ? 'x' : 'meta';

  const check = async () => {
    setChecking(true);
    setResult(null);
    try {
      const answer: ConnectionCheck = await api.test(account.id);
      const outcome = checkOutcome(answer);
      setResult(
        outcome.ok
          ? { ok: true, text: t('channels.check.ok', { name: outcome.text ?? account.name }) }
          : { ok: false, text: outcome.text ?? t('channels.check.noReason') },
      );
      onChecked();
    } catch (error) {
      setResult({ ok: false, text: describeError(error, t) });
    } finally {
      setChecking(false);
    }
  };

  return (
    <div className="channels-webhook" data-testid="channel-webhook">
      {/* A mailbox is read by the worker (email): there is no webhook to paste anywhere. */}
      {account.kind !== 'email' && (
        <>
          <CopyField id="channel-webhook-url" label={t('channels.webhook.url')} value={account.webhookUrl} />
          <CopyField id="channel-verify-token" label={t(`channels.webhook.token.${tokenKey}`)} value={account.verifyToken} />
        </>
      )}
      <div className="channels-webhook__steps">
        <strong>{t('channels.webhook.stepsTitle', { channel: kindLabel(account.kind) })}</strong>
        <p data-testid="channel-webhook-steps">{t(`channels.instructions.${account.kind}`)}</p>
      </div>
      <div className="channels-webhook__check">
        <Button
          type="button"
          label={t('channels.check.run')}
          icon="pi pi-bolt"
          outlined
          loading={checking}
          onClick={() => void check()}
          data-testid="channel-test-connection"
        />
        {result && (
          <span
            className={`channels-webhook__result channels-webhook__result--${result.ok ? 'ok' : 'failed'}`}
            role="status"
            data-testid="channel-check-result"
            data-ok={result.ok}
          >
            <i className={result.ok ? 'pi pi-check-circle' : 'pi pi-times-circle'} aria-hidden="true" />
            {result.ok ? result.text : t('channels.check.failedWith', { reason: result.text })}
          </span>
        )}
      </div>
    </div>
  );
}

function CopyField({ id, label, value }: { id: string; label: string; value: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState<'done' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('done');
    } catch {
      // No clipboard (an insecure origin or a refused permission): select the text for Ctrl+C instead.
      (document.getElementById(id) as HTMLInputElement | null)?.select();
      setCopied('failed');
    }
  };
  return (
    <FieldShell
      id={id}
      label={label}
      hint={copied === 'done' ? t('channels.webhook.copied') : copied === 'failed' ? t('channels.webhook.copyFailed') : null}
      wide
    >
      <div className="p-inputgroup">
        <InputText id={id} data-testid={id} value={value} readOnly onFocus={(event) => event.target.select()} />
        <Button
          type="button"
          icon={copied === 'done' ? 'pi pi-check' : 'pi pi-copy'}
          aria-label={t('channels.webhook.copy', { what: label })}
          tooltip={t('channels.webhook.copyShort')}
          onClick={() => void copy()}
          data-testid={`${id}-copy`}
        />
      </div>
    </FieldShell>
  );
}
