import { Suspense } from 'react';
import type { AppRoute } from '@centralita/contracts';
import { ADMIN_SCREENS } from '../admin/screens';
import { CRM_SCREENS } from '../crm/screens';
import { DASHBOARDS_SCREENS } from '../dashboards/screens';
import { DESK_SCREENS } from '../desk/screens';
import { EMAILS_SCREENS } from '../emails/screens';
import { OUTBOUND_SCREENS } from '../outbound/screens';
import { REPORTS_SCREENS } from '../reports/screens';
import { SOFTPHONE_SCREENS } from '../softphone/screens';
import { useAuth } from '../app/ServicesContext';
import { hasPermission } from '../auth/permissions';
import { useTranslation } from 'react-i18next';
import { NoPermissionPage } from '../pages/NoPermissionPage';
import { PlaceholderPage } from '../pages/PlaceholderPage';

/** Every built screen by route path; a route without one shows its capability placeholder. */
const SCREENS = {
  ...ADMIN_SCREENS,
  ...DESK_SCREENS,
  ...DASHBOARDS_SCREENS,
  ...REPORTS_SCREENS,
  ...OUTBOUND_SCREENS,
  ...SOFTPHONE_SCREENS,
  ...CRM_SCREENS,
  ...EMAILS_SCREENS,
};

/** One console route: the permission check, then the screen (or its capability placeholder). */
export function RoutePage({ route }: { route: AppRoute }) {
  const { user } = useAuth();
  if (!hasPermission(user, route.permission)) return <NoPermissionPage route={route} />;
  const Screen = SCREENS[route.path];
  if (Screen) {
    return (
      <Suspense fallback={<ScreenLoading />}>
        <Screen route={route} key={route.path} />
      </Suspense>
    );
  }
  return <PlaceholderPage route={route} />;
}

function ScreenLoading() {
  const { t } = useTranslation();
  return (
    <p className="muted" role="status">
      {t('common.loading')}
    </p>
  );
}
