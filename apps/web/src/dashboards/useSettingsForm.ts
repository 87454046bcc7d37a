import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { validateDashboardSettings, type DashboardSettings, type RuleIssue } from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { useServices } from '../app/ServicesContext';
import { useToast } from '../toast/ToastProvider';
import { createDashboardsApi } from './dashboards-api';

/** Load, edit, validate (the API's own rules) and save the client's dashboard settings. */
export function useSettingsForm() {
  const { t } = useTranslation();
  const { client } = useServices();
  const toast = useToast();
  const api = useMemo(() => createDashboardsApi(client), [client]);
  const [value, setValue] = useState<DashboardSettings | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const [touched, setTouched] = useState(false);

  const load = () => {
    setError(null);
    api.settings().then(setValue).catch(setError);
  };
  useEffect(load, [api]);

  const issues: RuleIssue[] = value ? validateDashboardSettings(value) : [];
  const message = (field: keyof DashboardSettings): string | null => {
    const issue = touched ? issues.find((candidate) => candidate.field === field) : undefined;
    return issue ? t(`validation.${issue.key}`, issue.values ?? {}) : null;
  };
  const change = (patch: Partial<DashboardSettings>) => setValue((held) => (held ? { ...held, ...patch } : held));

  const save = async () => {
    setTouched(true);
    if (!value || issues.length > 0) return;
    setSaving(true);
    try {
      setValue(await api.saveSettings(value));
      toast.success(t('dashboards.settings.saved'));
    } catch (failure) {
      toast.error(describeError(failure, t));
    } finally {
      setSaving(false);
    }
  };

  return { value, change, error, load, saving, save, message, api };
}
