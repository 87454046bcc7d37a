import { matchPath } from 'react-router-dom';
import { APP_ROUTES, PERMISSIONS, type AppRoute } from '@centralita/contracts';

/**
 * The template demo areas of spec §2 that are whole path prefixes (/material/*, ...). They are
 * scaffolding, not product behaviour, so they live here rather than in the shared contract.
 */
export const DEMO_ROUTES: AppRoute[] = [
  { path: '/material/*', titleKey: 'demoMaterial', permission: PERMISSIONS.dashboardView, capability: 'demo', icon: 'pi pi-palette' },
  {
    path: '/echartsForReact/*',
    titleKey: 'demoEchartsForReact',
    permission: PERMISSIONS.dashboardView,
    capability: 'demo',
    icon: 'pi pi-chart-line',
  },
  {
    path: '/gaugeChartsComponents/*',
    titleKey: 'demoGaugeCharts',
    permission: PERMISSIONS.dashboardView,
    capability: 'demo',
    icon: 'pi pi-gauge',
  },
];

export const CONSOLE_ROUTES: AppRoute[] = [...APP_ROUTES, ...DEMO_ROUTES];

/** Public pages that belong to later capabilities (spec §2). */
export const PUBLIC_CAPABILITY_PAGES = [
  { path: '/VideoChatContainer/:videoChatId', titleKey: 'videoChat', capability: 'video', icon: 'pi pi-video', param: 'videoChatId' },
] as const satisfies ReadonlyArray<{ path: string; titleKey: string; capability: AppRoute['capability']; icon: string; param: string }>;

/** The console route a location belongs to (case-insensitive, like the router). */
export function findRoute(pathname: string): AppRoute | null {
  return CONSOLE_ROUTES.find((route) => matchPath({ path: route.path, caseSensitive: false, end: true }, pathname)) ?? null;
}

/** Path segments shown between the home link and the page title. */
export function breadcrumbSegments(pathname: string): string[] {
  const parts = pathname
    .split('/')
    .filter(Boolean)
    .map((part) => safeDecode(part));
  return parts.slice(0, -1);
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** 'DashboardGeneralStatusQueue' → 'Dashboard general status queue', for segments without a label. */
export function humanise(key: string): string {
  const words = key
    .replace(/[-_]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .trim()
    .toLowerCase();
  return words ? words[0].toUpperCase() + words.slice(1) : key;
}
