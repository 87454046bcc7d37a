import type { AppRoute, DashboardWidget } from '@centralita/contracts';
import { DASHBOARD_WIDGETS, SHORT_ABANDON_MODES } from '@centralita/contracts';
import { Button } from 'primereact/button';
import { Dropdown } from 'primereact/dropdown';
import { InputNumber } from 'primereact/inputnumber';
import { MultiSelect } from 'primereact/multiselect';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../layout/PageHeader';
import { ErrorBanner, Help } from './DashboardParts';
import { useSettingsForm } from './useSettingsForm';
import './dashboards.css';

const TIME_ZONES: string[] = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [
  'UTC',
];

function Field({
  id,
  label,
  help,
  error,
  children,
}: {
  id: string;
  label: string;
  help: string;
  error: string | null;
  children: React.ReactNode;
}) {
  return (
    <div className="dash-field">
      <label htmlFor={id}>
        {label} <Help text={help} />
      </label>
      {children}
      {error && (
        <small className="p-error" data-testid={`error-${id}`}>
          {error}
        </small>
      )}
    </div>
  );
}

/** /dashboard/DashboardSettings: the client's thresholds, widgets and refresh, stored server-side. */
export default function DashboardSettingsPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const form = useSettingsForm();
  const value = form.value;
  return (
    <div className="dashboards">
      <PageHeader title={t(`routes.${route.titleKey}`)} icon={route.icon} />
      {form.error !== null && <ErrorBanner error={form.error} onRetry={form.load} />}
      {!value && form.error === null && (
        <p className="muted" role="status">
          {t('common.loading')}
        </p>
      )}
      {value && (
        <form
          className="card dash-form"
          data-testid="dashboard-settings-form"
          onSubmit={(event) => {
            event.preventDefault();
            void form.save();
          }}
        >
          <Field
            id="serviceLevelThresholdSec"
            label={t('dashboards.settings.serviceLevelThresholdSec')}
            help={t('dashboards.settings.help.serviceLevelThresholdSec')}
            error={form.message('serviceLevelThresholdSec')}
          >
            <InputNumber
              inputId="serviceLevelThresholdSec"
              value={value.serviceLevelThresholdSec}
              min={1}
              max={3600}
              suffix=" s"
              onValueChange={(event) => form.change({ serviceLevelThresholdSec: event.value ?? Number.NaN })}
            />
          </Field>
          <Field
            id="targetServiceLevelPct"
            label={t('dashboards.settings.targetServiceLevelPct')}
            help={t('dashboards.settings.help.targetServiceLevelPct')}
            error={form.message('targetServiceLevelPct')}
          >
            <InputNumber
              inputId="targetServiceLevelPct"
              value={value.targetServiceLevelPct}
              min={1}
              max={99}
              suffix=" %"
              onValueChange={(event) => form.change({ targetServiceLevelPct: event.value ?? Number.NaN })}
            />
          </Field>
          <Field
            id="shortAbandonSec"
            label={t('dashboards.settings.shortAbandonSec')}
            help={t('dashboards.settings.help.shortAbandonSec')}
            error={form.message('shortAbandonSec')}
          >
            <InputNumber
              inputId="shortAbandonSec"
              value={value.shortAbandonSec}
              min={0}
              max={600}
              suffix=" s"
              onValueChange={(event) => form.change({ shortAbandonSec: event.value ?? Number.NaN })}
            />
          </Field>
          <Field
            id="shortAbandonMode"
            label={t('dashboards.settings.shortAbandonMode')}
            help={t('dashboards.settings.help.shortAbandonMode')}
            error={form.message('shortAbandonMode')}
          >
            <Dropdown
              inputId="shortAbandonMode"
              value={value.shortAbandonMode}
              options={SHORT_ABANDON_MODES.map((mode) => ({ value: mode, label: t(`dashboards.settings.modes.${mode}`) }))}
              onChange={(event) => form.change({ shortAbandonMode: event.value })}
            />
          </Field>
          <Field
            id="timeZone"
            label={t('dashboards.settings.timeZone')}
            help={t('dashboards.settings.help.timeZone')}
            error={form.message('timeZone')}
          >
            <Dropdown
              inputId="timeZone"
              value={value.timeZone}
              options={TIME_ZONES}
              filter
              onChange={(event) => form.change({ timeZone: event.value })}
            />
          </Field>
          <Field
            id="refreshSeconds"
            label={t('dashboards.settings.refreshSeconds')}
            help={t('dashboards.settings.help.refreshSeconds')}
            error={form.message('refreshSeconds')}
          >
            <InputNumber
              inputId="refreshSeconds"
              value={value.refreshSeconds}
              min={10}
              max={3600}
              suffix=" s"
              onValueChange={(event) => form.change({ refreshSeconds: event.value ?? Number.NaN })}
            />
          </Field>
          <Field
            id="negativeThreshold"
            label={t('dashboards.settings.negativeThreshold')}
            help={t('dashboards.settings.help.negativeThreshold')}
            error={form.message('negativeThreshold')}
          >
            <InputNumber
              inputId="negativeThreshold"
              value={value.negativeThreshold}
              min={-1}
              max={0}
              minFractionDigits={2}
              maxFractionDigits={2}
              step={0.05}
              onValueChange={(event) => form.change({ negativeThreshold: event.value ?? Number.NaN })}
            />
          </Field>
          <Field
            id="visibleWidgets"
            label={t('dashboards.settings.visibleWidgets')}
            help={t('dashboards.settings.help.visibleWidgets')}
            error={form.message('visibleWidgets')}
          >
            <MultiSelect
              inputId="visibleWidgets"
              value={value.visibleWidgets}
              options={DASHBOARD_WIDGETS.map((widget) => ({ value: widget, label: t(`dashboards.widget.${widget}`) }))}
              display="chip"
              onChange={(event) => form.change({ visibleWidgets: event.value as DashboardWidget[] })}
            />
          </Field>
          <div className="dash-form__actions">
            <Button
              type="submit"
              icon="pi pi-save"
              label={t('dashboards.settings.save')}
              loading={form.saving}
              data-testid="dashboard-settings-save"
            />
          </div>
        </form>
      )}
    </div>
  );
}
