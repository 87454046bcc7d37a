import { APP_ROUTES, MENU_SECTIONS, OFF_MENU_ROUTES, type AppRoute, type MenuItem, type MenuSection } from '@centralita/contracts';

export interface CuratedEntry {
  routePath: string;
  position: number;
}

/**
 * Routes that appear in the side navigation: list screens (they carry an icon), not demo pages, and
 * not the routes kept off the menu (duplicates of another entry, screens not built, public pages).
 */
export function isMenuRoute(route: AppRoute): boolean {
  return Boolean(route.icon) && route.capability !== 'demo' && !Object.hasOwn(OFF_MENU_ROUTES, route.path);
}

/** A duplicate's own entry, for callers whose permissions do not open the entry it duplicates. */
function duplicateOf(route: AppRoute): string | null {
  const entry = Object.hasOwn(OFF_MENU_ROUTES, route.path) ? OFF_MENU_ROUTES[route.path] : undefined;
  return Boolean(route.icon) && entry?.reason === 'duplicate' ? entry.sameAs : null;
}

export function groupOf(path: string, sections: MenuSection[] = MENU_SECTIONS): { section: string; group: string } | null {
  for (const section of sections) {
    for (const group of section.groups)
      if (group.prefixes.some((prefix) => path.startsWith(prefix))) return { section: section.key, group: group.key };
  }
  return null;
}

/**
 * The side navigation for a set of permissions: APP_ROUTES the permissions open, arranged by
 * MENU_SECTIONS into 'label' and 'group' items. A curated list (RoleMenu rows) narrows and orders
 * the links; it never adds a route the permissions do not open.
 */
export function buildMenu(permissions: readonly string[], curated: CuratedEntry[] = [], routes: AppRoute[] = APP_ROUTES): MenuItem[] {
  const granted = new Set(permissions);
  const positions = new Map(curated.map((entry) => [entry.routePath, entry.position]));
  const opens = (route: AppRoute | undefined) => route !== undefined && (route.permission === null || granted.has(route.permission));
  // A duplicate shows only when the screen it repeats is not open to these permissions (one entry per screen).
  const listed = (route: AppRoute) => {
    const sameAs = duplicateOf(route);
    return sameAs === null ? isMenuRoute(route) : !opens(routes.find((candidate) => candidate.path === sameAs));
  };
  const visible = routes.filter((route) => listed(route) && opens(route) && (!curated.length || positions.has(route.path)));
  const order = (route: AppRoute): number => positions.get(route.path) ?? routes.indexOf(route);

  const menu: MenuItem[] = [];
  for (const section of MENU_SECTIONS) {
    const items: MenuItem[] = [];
    for (const group of section.groups) {
      const links = visible
        .filter((route) => group.prefixes.some((prefix) => route.path.startsWith(prefix)))
        .sort((a, b) => order(a) - order(b))
        .map((route): MenuItem => ({ type: 'link', key: route.titleKey, path: route.path, ...(route.icon ? { icon: route.icon } : {}) }));
      if (links.length === 1) items.push(links[0]);
      else if (links.length > 1) items.push({ type: 'group', key: group.key, icon: group.icon, children: links });
    }
    if (items.length) menu.push({ type: 'label', key: section.key }, ...items);
  }
  return menu;
}
