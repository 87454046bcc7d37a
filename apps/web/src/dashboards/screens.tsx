import { lazy, type ComponentType } from 'react';
import type { AppRoute } from '@centralita/contracts';

const Dashboard = lazy(() => import('./DashboardScreens').then((module) => ({ default: module.LayoutDashboard })));
const Settings = lazy(() => import('./DashboardSettingsPage'));
const ServiceAgentsSettings = lazy(() => import('./ServiceAgentsSettingsPage'));

/**
 * Console routes served by the dashboards area (spec §2), each loaded on demand with React.lazy.
 * /dashboard/superUser and /dashboard/DashboardAgente stay the desk's live screens.
 */
export const DASHBOARDS_SCREENS: Record<string, ComponentType<{ route: AppRoute }>> = {
  '/dashboard/default': Dashboard,
  '/dashboard/defaultold': Dashboard,
  '/dashboard/generaldashboard': Dashboard,
  '/dashboard/agente': Dashboard,
  '/dashboard/shared/AgentPauseDetail': Dashboard,
  '/dashboard/DashboardGeneralStatusQueue': Dashboard,
  '/dashboard/DashboardGeneralServiceAgents': Dashboard,
  '/dashboard/DashboardFeelings': Dashboard,
  '/dashboard/DashboardSettings': Settings,
  '/dashboard/DashboardSettingServiceAgents': ServiceAgentsSettings,
};
