import { APP_ROUTES, MENU_SECTIONS, type AppRoute, type MenuItem, type MenuSection } from '@centralita/contracts';

export interface CuratedEntry {
  routePath: string;
  position: number;
}

/** Routes that appear in the side navigation: list screens (they carry an icon), not demo pages. */
export function isMenuRoute(route: AppRoute): boolean {
  return Boolean(route.icon) && route.capability !== 'demo';
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
  const visible = routes.filter(
    (route) =>
      isMenuRoute(route) && (route.permission === null || granted.has(route.permission)) && (!curated.length || positions.has(route.path)),
  );
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
