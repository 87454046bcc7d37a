import { useState } from 'react';
import { Button } from 'primereact/button';
import { InputSwitch } from 'primereact/inputswitch';
import { InputText } from 'primereact/inputtext';
import { useTranslation } from 'react-i18next';
import type { ChannelConfigView } from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useApi } from '../../app/ServicesContext';
import { formatDateTime } from '../../format/format';
import { useToast } from '../../toast/ToastProvider';
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
} from '../screens/channel-secrets';

const draftsOf = (secrets: Record<string, string>): Record<string, SecretDraft> =>
  Object.fromEntries(Object.entries(secrets).map(([key, value]) => [key, secretDraft(value)]));

/**
 * One channel's /api/channels-config settings, moved here from the old per-channel page: the
 * channels screen shows it for web chat's widget (the messaging channels are accounts now).
 */
export function ChannelCard({ initial }: { initial: ChannelConfigView }) {
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
