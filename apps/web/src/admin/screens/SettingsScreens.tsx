import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Button } from 'primereact/button';
import { Chips } from 'primereact/chips';
import { useTranslation } from 'react-i18next';
import {
  CALL_RECORDING_RETENTION_DAYS,
  DEFAULT_PLATFORM_SETTINGS,
  validatePlatformSettings,
  type AppRoute,
  type PlatformSettings,
} from '@centralita/contracts';
import { isApiError } from '../../api/api-error';
import { describeError } from '../../api/error-text';
import { useApi } from '../../app/ServicesContext';
import { PageHeader } from '../../layout/PageHeader';
import { useToast } from '../../toast/ToastProvider';
import { CheckInput, FieldShell, NumberInput, TextArea } from '../fields';
import { useAdminForm } from '../useAdminForm';

type SettingsValues = Omit<PlatformSettings, 'idleLogoutMinutes' | 'maxQueueWaitSeconds' | 'callRecordingRetentionDays'> & {
  idleLogoutMinutes: number | null;
  maxQueueWaitSeconds: number | null;
  callRecordingRetentionDays: number | null;
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
      if (isApiError(e)) form.showServerError(e);
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
            id="settings-call-recording"
            label={t('telephony.recordings.title')}
            hint={t('admin.settings.callRecordingHint')}
            wide
          >
            <CheckInput
              id="settings-call-recording"
              label={t('admin.settings.callRecording')}
              checked={values.callRecording}
              onChange={set('callRecording')}
            />
            <CheckInput
              id="settings-announce-recording"
              label={t('admin.settings.announceCallRecording')}
              checked={values.announceCallRecording}
              disabled={!values.callRecording}
              onChange={set('announceCallRecording')}
            />
          </FieldShell>
          <NumberInput
            id="settings-recording-days"
            label={t('admin.settings.callRecordingRetentionDays')}
            hint={t('admin.campaigns.allowedChatsHint', { min: CALL_RECORDING_RETENTION_DAYS.min, max: CALL_RECORDING_RETENTION_DAYS.max })}
            value={values.callRecordingRetentionDays}
            onChange={set('callRecordingRetentionDays')}
            onBlur={blur('callRecordingRetentionDays')}
            error={errorFor('callRecordingRetentionDays')}
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
