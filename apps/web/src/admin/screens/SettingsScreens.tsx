import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Button } from 'primereact/button';
import { Chips } from 'primereact/chips';
import { InputSwitch } from 'primereact/inputswitch';
import { InputText } from 'primereact/inputtext';
import { useTranslation } from 'react-i18next';
import {
  DEFAULT_PLATFORM_SETTINGS,
  validatePlatformSettings,
  type AppRoute,
  type ChannelConfigView,
  type PlatformSettings,
} from '@centralita/contracts';
import { isApiError } from '../../api/api-error';
import { describeError } from '../../api/error-text';
import { useApi } from '../../app/ServicesContext';
import { formatDateTime } from '../../format/format';
import { PageHeader } from '../../layout/PageHeader';
import { useToast } from '../../toast/ToastProvider';
import { serverIssues } from '../admin-logic';
import { FieldShell, NumberInput, TextArea } from '../fields';
import {
  clearSecret,
  isStored,
  keepSecret,
  onSecretBlur,
  onSecretFocus,
  onSecretTyped,
  secretDraft,
  secretsBody,
  type SecretDraft,
} from './channel-secrets';
import { useAdminForm } from '../useAdminForm';

type SettingsValues = Omit<PlatformSettings, 'idleLogoutMinutes' | 'maxQueueWaitSeconds'> & {
  idleLogoutMinutes: number | null;
  maxQueueWaitSeconds: number | null;
};

/** /platformSettings/platformSettings: tenant settings and emoticons. */
export function PlatformSettingsPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const toast = useToast();
  const form = useAdminForm<SettingsValues>(
    DEFAULT_PLATFORM_SETTINGS,
    useCallback((v: SettingsValues) => validatePlatformSettings(v), []),
  );
  const { values, set, blur, errorFor, setValues } = form;
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    api.admin
      .platformSettings()
      .then(setValues)
      .catch((e: unknown) => setFailure(describeError(e, t)));
  }, [api, setValues, t]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!form.submit()) return;
    setSaving(true);
    setFailure(null);
    try {
      setValues(await api.admin.savePlatformSettings(values as PlatformSettings));
      toast.success(t('admin.form.saved'));
    } catch (e) {
      if (isApiError(e) && e.code === 'validation') form.showServerIssues(serverIssues(e.data));
      setFailure(describeError(e, t));
    } finally {
      setSaving(false);
    }
  };

  return (
    <>
      <PageHeader title={t(`routes.${route.titleKey}`)} icon={route.icon} />
      <form className="card admin-form" noValidate onSubmit={(e) => void onSubmit(e)} data-testid="admin-form">
        <div className="admin-form__grid">
          <TextArea
            id="settings-welcome"
            wide
            rows={2}
            label={t('admin.settings.welcomeMessage')}
            hint={t('admin.settings.welcomeMessageHint', { text: t('desk.widget.intro') })}
            value={values.welcomeMessage}
            onChange={set('welcomeMessage')}
            onBlur={blur('welcomeMessage')}
            error={errorFor('welcomeMessage')}
          />
          <TextArea
            id="settings-offhours"
            wide
            rows={2}
            label={t('admin.settings.offHoursMessage')}
            hint={t('admin.settings.offHoursMessageHint', { text: t('desk.widget.offHours') })}
            value={values.offHoursMessage}
            onChange={set('offHoursMessage')}
            onBlur={blur('offHoursMessage')}
            error={errorFor('offHoursMessage')}
          />
          <NumberInput
            id="settings-idle"
            label={t('admin.settings.idleLogoutMinutes')}
            hint={t('admin.campaigns.allowedChatsHint', { min: 5, max: 1440 })}
            value={values.idleLogoutMinutes}
            onChange={set('idleLogoutMinutes')}
            onBlur={blur('idleLogoutMinutes')}
            error={errorFor('idleLogoutMinutes')}
          />
          <NumberInput
            id="settings-queue"
            label={t('admin.settings.maxQueueWaitSeconds')}
            hint={t('admin.campaigns.allowedChatsHint', { min: 30, max: 86400 })}
            value={values.maxQueueWaitSeconds}
            onChange={set('maxQueueWaitSeconds')}
            onBlur={blur('maxQueueWaitSeconds')}
            error={errorFor('maxQueueWaitSeconds')}
          />
          <FieldShell
            id="settings-emoticons"
            label={t('admin.settings.emoticons')}
            hint={t('admin.settings.emoticonsHint')}
            error={errorFor('emoticons')}
            wide
          >
            <Chips
              inputId="settings-emoticons"
              value={values.emoticons}
              separator=","
              onChange={(e) => set('emoticons')(e.value ?? [])}
              className="settings-emoticons"
            />
          </FieldShell>
        </div>
        {failure && (
          <div className="form-error" role="alert">
            <i className="pi pi-times-circle" aria-hidden="true" />
            <span>{failure}</span>
          </div>
        )}
        <div className="admin-form__actions">
          <Button type="submit" icon="pi pi-check" label={t('admin.form.save')} loading={saving} data-testid="admin-save" />
        </div>
      </form>
    </>
  );
}

/** /ChannelsAdmin/ChannelsAdmin: one card per channel; secrets are write-only (shown masked). */
export function ChannelsAdminPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const [channels, setChannels] = useState<ChannelConfigView[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    api.admin
      .channels()
      .then(setChannels)
      .catch((e: unknown) => setFailure(describeError(e, t)));
  }, [api, t]);
  return (
    <>
      <PageHeader title={t(`routes.${route.titleKey}`)} icon={route.icon} subtitle={t('admin.channels.subtitle')} />
      {failure && (
        <div className="form-error" role="alert">
          {failure}
        </div>
      )}
      <div className="channel-grid">
        {channels.map((channel) => (
          <ChannelCard key={channel.channel} initial={channel} />
        ))}
      </div>
    </>
  );
}

const draftsOf = (secrets: Record<string, string>): Record<string, SecretDraft> =>
  Object.fromEntries(Object.entries(secrets).map(([key, value]) => [key, secretDraft(value)]));

function ChannelCard({ initial }: { initial: ChannelConfigView }) {
  const { t } = useTranslation();
  const api = useApi();
  const toast = useToast();
  const [view, setView] = useState(initial);
  const [settings, setSettings] = useState(initial.settings);
  const [secrets, setSecrets] = useState(() => draftsOf(initial.secrets));
  const setSecret = (key: string, draft: SecretDraft) => setSecrets((held) => ({ ...held, [key]: draft }));
  const [enabled, setEnabled] = useState(initial.enabled);
  const [saving, setSaving] = useState(false);
  const save = async () => {
    setSaving(true);
    try {
      const next = await api.admin.saveChannel(view.channel, { enabled, settings, secrets: secretsBody(secrets) });
      setView(next);
      setSecrets(draftsOf(next.secrets));
      toast.success(t('admin.form.saved'));
    } catch (e) {
      toast.error(t('admin.form.saveFailed'), describeError(e, t));
    } finally {
      setSaving(false);
    }
  };
  return (
    <section className="card channel-card" data-testid={`channel-${view.channel}`}>
      <header className="channel-card__head">
        <h3 className="card__title">
          {view.channel} <span className="muted">#{view.channelId}</span>
        </h3>
        <InputSwitch checked={enabled} onChange={(e) => setEnabled(!!e.value)} aria-label={t('admin.channels.enabled')} />
      </header>
      {Object.keys(settings).map((key) => (
        <label key={key} className="channel-card__field">
          <span>{t(`admin.channels.fields.${key}`)}</span>
          <InputText value={settings[key]} onChange={(e) => setSettings({ ...settings, [key]: e.target.value })} />
        </label>
      ))}
      {Object.keys(secrets).map((key) => (
        <label key={key} className="channel-card__field">
          <span>
            <i className="pi pi-lock" aria-hidden="true" /> {t(`admin.channels.fields.${key}`)}
          </span>
          <span className="channel-card__secret">
            <InputText
              type="password"
              autoComplete="off"
              value={secrets[key].value}
              placeholder={t('admin.channels.notSet')}
              onFocus={() => setSecret(key, onSecretFocus(secrets[key]))}
              onBlur={() => setSecret(key, onSecretBlur(secrets[key], view.secrets[key]))}
              onChange={(e) => setSecret(key, onSecretTyped(e.target.value))}
              data-testid={`channel-${view.channel}-${key}`}
            />
            {isStored(view.secrets[key]) &&
              (secrets[key].clearing ? (
                <Button
                  type="button"
                  icon="pi pi-undo"
                  text
                  size="small"
                  label={t('admin.channels.keepSecret')}
                  onClick={() => setSecret(key, keepSecret(view.secrets[key]))}
                  data-testid={`channel-${view.channel}-${key}-keep`}
                />
              ) : (
                <Button
                  type="button"
                  icon="pi pi-eraser"
                  text
                  severity="danger"
                  size="small"
                  label={t('admin.channels.clearSecret')}
                  onClick={() => setSecret(key, clearSecret())}
                  data-testid={`channel-${view.channel}-${key}-clear`}
                />
              ))}
          </span>
          {secrets[key].clearing && (
            <small className="muted" role="status">
              {t('admin.channels.willClear')}
            </small>
          )}
        </label>
      ))}
      <footer className="channel-card__foot">
        <small className="muted">{view.updatedAt ? formatDateTime(view.updatedAt, t) : t('admin.channels.neverSaved')}</small>
        <Button icon="pi pi-check" label={t('admin.form.save')} size="small" loading={saving} onClick={() => void save()} />
      </footer>
    </section>
  );
}
