import type { ReactNode } from 'react';
import { Button } from 'primereact/button';
import { Calendar } from 'primereact/calendar';
import { Dropdown } from 'primereact/dropdown';
import { useTranslation } from 'react-i18next';
import { valueLabel, type DashboardOption, type DashboardOptions } from '@centralita/contracts';
import { normaliseLanguage } from '../i18n/languages';
import { describeError } from '../api/error-text';
import type { DashboardFilterState } from './dashboard-format';

/** A small "how is this computed" button: the text is its tooltip and its accessible name. */
export function Help({ text }: { text: string }) {
  return (
    <span className="dash-help" tabIndex={0} role="note" aria-label={text} title={text} data-help>
      <i className="pi pi-question-circle" aria-hidden="true" />
    </span>
  );
}

export function KpiCard({ id, label, value, help, note }: { id: string; label: string; value: string; help: string; note?: string }) {
  return (
    <div className="dash-kpi" data-testid={`kpi-${id}`}>
      <span className="dash-kpi__label">
        {label} <Help text={help} />
      </span>
      <strong className="dash-kpi__value" data-testid={`kpi-${id}-value`}>
        {value}
      </strong>
      {note ? (
        <small className="dash-kpi__note" data-testid={`kpi-${id}-note`}>
          {note}
        </small>
      ) : null}
    </div>
  );
}

/** One widget's card: title with its help, optional actions, and the loading / empty states. */
export function Panel({
  id,
  title,
  help,
  actions,
  loading,
  empty,
  live,
  wide,
  children,
}: {
  id: string;
  title: string;
  help: string;
  actions?: ReactNode;
  loading: boolean;
  empty: boolean;
  live?: boolean;
  wide?: boolean;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <section className={`card dash-panel${wide ? ' dash-panel--wide' : ''}`} data-testid={`widget-${id}`} aria-busy={loading}>
      <header className="dash-panel__header">
        <h2 className="card__title">
          {title} <Help text={help} />
          {live && <span className="chip chip--primary dash-live">{t('dashboards.state.live')}</span>}
        </h2>
        {actions && <div className="dash-panel__actions">{actions}</div>}
      </header>
      {loading ? (
        <p className="muted" role="status">
          {t('common.loading')}
        </p>
      ) : empty ? (
        <p className="muted dash-empty" data-testid={`widget-${id}-empty`}>
          {t('dashboards.state.empty')}
        </p>
      ) : (
        children
      )}
    </section>
  );
}

export function ErrorBanner({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="form-error dash-error" role="alert" data-testid="dashboard-error">
      <i className="pi pi-exclamation-triangle" aria-hidden="true" />
      <span>{describeError(error, t)}</span>
      <Button type="button" text label={t('common.retry')} onClick={onRetry} />
    </div>
  );
}

type FilterKey = 'attentionLineId' | 'campaignId' | 'agentId';

/** Date range and the line / campaign / channel / agent filters every historical widget takes. */
export function FilterBar({
  filters,
  options,
  onChange,
  valid,
  show = { line: true, campaign: true, channel: true, agent: true },
}: {
  filters: DashboardFilterState;
  options: DashboardOptions;
  onChange: (next: DashboardFilterState) => void;
  valid: boolean;
  show?: { line: boolean; campaign: boolean; channel: boolean; agent: boolean };
}) {
  const { t, i18n } = useTranslation();
  const language = normaliseLanguage(i18n.resolvedLanguage ?? i18n.language);
  const change = (patch: Partial<DashboardFilterState>) => onChange({ ...filters, ...patch });
  const sources: Record<FilterKey, { list: DashboardOption[]; label: string; visible: boolean }> = {
    attentionLineId: { list: options.lines, label: t('dashboards.filters.line'), visible: show.line },
    campaignId: { list: options.campaigns, label: t('dashboards.filters.campaign'), visible: show.campaign },
    agentId: { list: options.agents, label: t('dashboards.filters.agent'), visible: show.agent },
  };
  const picker = (key: FilterKey) =>
    sources[key].visible && (
      <label className="dash-filter" key={key}>
        <span>{sources[key].label}</span>
        <Dropdown
          inputId={`dash-${key}`}
          value={filters[key] ?? null}
          options={sources[key].list}
          optionLabel="name"
          optionValue="id"
          placeholder={t('dashboards.filters.all')}
          showClear
          filter={sources[key].list.length > 8}
          emptyMessage={t('dashboards.filters.noOptions')}
          onChange={(event) => change({ [key]: (event.value as string | null) ?? undefined })}
        />
      </label>
    );
  return (
    <>
      <section className="card dash-filters" aria-label={t('dashboards.filters.title')} data-testid="dashboard-filters">
        <label className="dash-filter">
          <span>{t('dashboards.filters.from')}</span>
          <Calendar
            inputId="dash-from"
            value={filters.from}
            dateFormat="dd-mm-yy"
            showTime
            hourFormat="24"
            showIcon
            invalid={!valid}
            onChange={(event) => change({ from: (event.value as Date | null) ?? null })}
          />
        </label>
        <label className="dash-filter">
          <span>{t('dashboards.filters.to')}</span>
          <Calendar
            inputId="dash-to"
            value={filters.to}
            dateFormat="dd-mm-yy"
            showTime
            hourFormat="24"
            showIcon
            invalid={!valid}
            onChange={(event) => change({ to: (event.value as Date | null) ?? null })}
          />
        </label>
        {picker('attentionLineId')}
        {picker('campaignId')}
        {show.channel && (
          <label className="dash-filter">
            <span>{t('dashboards.filters.channel')}</span>
            <Dropdown
              inputId="dash-channel"
              value={filters.channel ?? null}
              options={options.channels.map((channel) => ({ value: channel, label: valueLabel('channel', channel, language) }))}
              placeholder={t('dashboards.filters.all')}
              showClear
              emptyMessage={t('dashboards.filters.noOptions')}
              onChange={(event) => change({ channel: (event.value as string | null) ?? undefined })}
            />
          </label>
        )}
        {picker('agentId')}
      </section>
      {!valid && (
        <div className="form-error" role="alert" data-testid="dashboard-range-error">
          <i className="pi pi-exclamation-triangle" aria-hidden="true" />
          <span>{t('dashboards.filters.invalidRange')}</span>
        </div>
      )}
    </>
  );
}
