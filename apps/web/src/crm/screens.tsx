import { lazy, type ComponentType } from 'react';
import type { AppRoute } from '@centralita/contracts';

/** Console routes served by the CRM area (spec §2), each loaded on demand with React.lazy. */
export const CRM_SCREENS: Record<string, ComponentType<{ route: AppRoute }>> = {
  '/crm/crmlist': lazy(() => import('./CasesPage')),
};
