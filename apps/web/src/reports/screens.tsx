import { lazy, type ComponentType } from 'react';
import type { AppRoute } from '@centralita/contracts';

/** Console routes served by the reports area (spec §2), each loaded on demand with React.lazy. */
export const REPORTS_SCREENS: Record<string, ComponentType<{ route: AppRoute }>> = {
  '/reports/reports': lazy(() => import('./ReportsPage')),
};
