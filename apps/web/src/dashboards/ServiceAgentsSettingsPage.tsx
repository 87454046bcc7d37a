import type { AppRoute, ScheduleEntry } from '@centralita/contracts';
import { Button } from 'primereact/button';
import { Dropdown } from 'primereact/dropdown';
import { InputText } from 'primereact/inputtext';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../layout/PageHeader';
import { ErrorBanner, FilterBar, Help } from './DashboardParts';
import { useDashboard } from './useDashboard';
import { useSettingsForm } from './useSettingsForm';
import { ComplianceWidget } from './Widgets';
import './dashboards.css';

const DAYS = [1, 2, 3, 4, 5, 6, 0];

/**
 * /dashboard/DashboardSettingServiceAgents: the service agents' planned schedule (the staff
 * compliance reference) and the compliance chart it produces.
 */
export default function ServiceAgentsSettingsPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const form = useSettingsForm();
  const state = useDashboard(['compliance'], { live: false });
  const schedule = form.value?.schedule ?? [];
  const setSchedule = (next: ScheduleEntry[]) => form.change({ schedule: next });
  const dayOptions = DAYS.map((day) => ({ value: day, label: t(`dashboards.settings.days.${day}`) }));
  return (
    <div className="dashboards">
      <PageHeader title={t(`routes.${route.titleKey}`)} icon={route.icon} />
      {form.error !== null && <ErrorBanner error={form.error} onRetry={form.load} />}
      <section className="card dash-form" data-testid="schedule-form">
        <h2 className="card__title">
          {t('dashboards.settings.schedule')}{' '}
          <Help text={t('dashboards.settings.help.schedule', { zone: form.value?.timeZone ?? 'UTC' })} />
        </h2>
        {!form.value ? (
          <p className="muted" role="status">
            {t('common.loading')}
          </p>
        ) : (
          <>
            {schedule.length === 0 && <p className="muted dash-empty">{t('dashboards.settings.noSchedule')}</p>}
            {schedule.map((entry, index) => (
              <div className="dash-shift" key={index} data-testid="schedule-row">
                <Dropdown
                  aria-label={t('dashboards.settings.day')}
                  value={entry.day}
                  options={dayOptions}
                  onChange={(event) =>
                    setSchedule(schedule.map((held, i) => (i === index ? { ...held, day: event.value as number } : held)))
                  }
                />
                <InputText
                  aria-label={t('dashboards.settings.shiftFrom')}
                  value={entry.from}
                  placeholder="09:00"
                  onChange={(event) => setSchedule(schedule.map((held, i) => (i === index ? { ...held, from: event.target.value } : held)))}
                />
                <InputText
                  aria-label={t('dashboards.settings.shiftTo')}
                  value={entry.to}
                  placeholder="17:00"
                  onChange={(event) => setSchedule(schedule.map((held, i) => (i === index ? { ...held, to: event.target.value } : held)))}
                />
                <Button
                  type="button"
                  icon="pi pi-trash"
                  text
                  aria-label={t('dashboards.settings.removeShift')}
                  onClick={() => setSchedule(schedule.filter((_, i) => i !== index))}
                />
              </div>
            ))}
            {form.message('schedule') && <small className="p-error">{form.message('schedule')}</small>}
            <div className="dash-form__actions">
              <Button
                type="button"
                icon="pi pi-plus"
                text
                label={t('dashboards.settings.addShift')}
                onClick={() => setSchedule([...schedule, { day: 1, from: '09:00', to: '17:00' }])}
              />
              <Button
                type="button"
                icon="pi pi-save"
                label={t('dashboards.settings.save')}
                loading={form.saving}
                onClick={() => void form.save().then(() => state.reload())}
                data-testid="schedule-save"
              />
            </div>
          </>
        )}
      </section>
      <FilterBar filters={state.filters} options={state.options} onChange={state.setFilters} valid={state.valid} />
      {state.error !== null && <ErrorBanner error={state.error} onRetry={state.reload} />}
      <div className="dash-grid">{state.visible.includes('compliance') && <ComplianceWidget state={state} />}</div>
    </div>
  );
}
