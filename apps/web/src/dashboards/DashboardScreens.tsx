import type { AppRoute } from '@centralita/contracts';
import { DashboardPage, LAYOUTS } from './DashboardPage';

/** Every layout route shares one component; RoutePage keys it by path, so filters reset per route. */
export function LayoutDashboard({ route }: { route: AppRoute }) {
  return <DashboardPage route={route} layout={LAYOUTS[route.path]!} />;
}
