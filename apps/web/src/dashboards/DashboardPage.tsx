import type { AppRoute, DashboardWidget } from '@centralita/contracts';
import { Button } from 'primereact/button';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../layout/PageHeader';
import { ErrorBanner, FilterBar } from './DashboardParts';
import { useDashboard } from './useDashboard';
import { WIDGETS } from './Widgets';
import './dashboards.css';

export interface DashboardLayout {
  widgets: DashboardWidget[];
  /** Subscribe to the staff socket and reload the "now" figures on every change. */
  live: boolean;
  /** The classic dashboard: figures as one table rather than cards and charts. */
  tabular?: boolean;
}

/**
 * A dashboard route: the shared filter bar, then the widgets of its layout that the client's
 * settings show. Every figure comes from /api/dashboards and is explained by its help.
 */
export function DashboardPage({ route, layout }: { route: AppRoute; layout: DashboardLayout }) {
  const { t } = useTranslation();
  const state = useDashboard(layout.widgets, { live: layout.live });
  return (
    <div className="dashboards" data-testid="dashboard-page" data-loading={state.loading}>
      <PageHeader
        title={t(`routes.${route.titleKey}`)}
        icon={route.icon}
        actions={
          <Button
            type="button"
            icon="pi pi-refresh"
            text
            label={t('dashboards.filters.refresh')}
            onClick={state.reload}
            data-testid="dashboard-refresh"
          />
        }
      />
      <FilterBar filters={state.filters} options={state.options} onChange={state.setFilters} valid={state.valid} />
      {state.error !== null && <ErrorBanner error={state.error} onRetry={state.reload} />}
      {state.settings && state.visible.length === 0 && <p className="muted dash-empty">{t('dashboards.state.noWidgets')}</p>}
      <div className="dash-grid">
        {state.visible.map((widget) => {
          const Widget = WIDGETS[widget];
          return <Widget key={widget} state={state} tabular={layout.tabular} />;
        })}
      </div>
    </div>
  );
}

/** The spec's dashboard routes and what each shows. */
export const LAYOUTS: Record<string, DashboardLayout> = {
  '/dashboard/default': { widgets: ['summary', 'percentages', 'trend'], live: false },
  '/dashboard/defaultold': { widgets: ['summary'], live: false, tabular: true },
  '/dashboard/generaldashboard': { widgets: ['summary', 'percentages', 'trend', 'queueStatus', 'positions'], live: true },
  '/dashboard/agente': { widgets: ['agentService', 'activeByAgent', 'compliance'], live: true },
  '/dashboard/shared/AgentPauseDetail': { widgets: ['pauses'], live: false },
  '/dashboard/DashboardGeneralStatusQueue': { widgets: ['queueStatus', 'positions', 'staffing'], live: true },
  '/dashboard/DashboardGeneralServiceAgents': { widgets: ['agentService', 'activeByAgent', 'trend'], live: true },
  '/dashboard/DashboardFeelings': { widgets: ['sentiment'], live: true },
};
