import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { duration, percent } from './dashboard-format';
import { Help } from './DashboardParts';
import { useDashboard } from './useDashboard';
import './dashboards.css';

/**
 * Today's headline figures in one row, for a host screen (live supervision) to mount. It opens no
 * socket of its own: the host passes `changes` (any number that grows with its pushes, e.g. the
 * count of updates received) and the strip reloads when it changes, besides the settings' refresh.
 */
export function KpiStrip({ changes = 0 }: { changes?: number }) {
  const { t } = useTranslation();
  const state = useDashboard(['summary'], { live: false });
  // reload is rebuilt every render: keep the latest in a ref so only the host's pushes trigger it.
  const reload = useRef(state.reload);
  reload.current = state.reload;
  useEffect(() => {
    if (changes > 0) reload.current();
  }, [changes]);
  const summary = state.data.summary;
  const threshold = state.settings?.serviceLevelThresholdSec ?? 20;
  const items: [string, string, string][] = [
    ['offered', summary ? String(summary.offered) : '…', 'offered'],
    ['serviceLevel', summary ? percent(summary.serviceLevel) : '…', 'serviceLevel'],
    ['asa', summary ? duration(summary.averageSpeedOfAnswerMs) : '…', 'asa'],
    ['abandonmentRate', summary ? percent(summary.abandonmentRate) : '…', 'abandonmentRate'],
    ['waitingNow', summary ? String(summary.waitingNow) : '…', 'waitingNow'],
  ];
  return (
    <div className="dash-strip" data-testid="kpi-strip" aria-busy={!summary}>
      {items.map(([id, value, key]) => (
        <span key={id} className="dash-strip__item" data-testid={`strip-${id}`}>
          <span className="dash-strip__label">
            {t(`dashboards.kpi.${key}`)}{' '}
            <Help
              text={t(`dashboards.help.${key}`, {
                threshold,
                short: state.settings?.shortAbandonSec ?? 0,
                mode: t(`dashboards.settings.modes.${state.settings?.shortAbandonMode ?? 'count'}`),
              })}
            />
          </span>
          <strong>{value}</strong>
        </span>
      ))}
    </div>
  );
}
