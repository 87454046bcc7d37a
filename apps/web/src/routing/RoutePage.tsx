import type { AppRoute } from '@centralita/contracts';
import { useAuth } from '../app/ServicesContext';
import { hasPermission } from '../auth/permissions';
import { DashboardHomePage } from '../pages/DashboardHomePage';
import { NoPermissionPage } from '../pages/NoPermissionPage';
import { PlaceholderPage } from '../pages/PlaceholderPage';

/** One console route: the permission check, then the screen (or its capability placeholder). */
export function RoutePage({ route }: { route: AppRoute }) {
  const { user } = useAuth();
  if (!hasPermission(user, route.permission)) return <NoPermissionPage route={route} />;
  if (route.path === '/dashboard/default') return <DashboardHomePage route={route} />;
  return <PlaceholderPage route={route} />;
}
