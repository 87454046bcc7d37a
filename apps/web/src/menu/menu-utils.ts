import type { MenuItem } from '@centralita/contracts';

function normalise(path: string): string {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return trimmed.toLowerCase();
}

/** A link is active on its own path and on anything below it. */
export function isPathActive(linkPath: string, pathname: string): boolean {
  const link = normalise(linkPath);
  const current = normalise(pathname);
  return current === link || current.startsWith(`${link}/`);
}

/** Groups open by themselves when the current page is one of their (nested) links. */
export function groupContainsPath(item: MenuItem, pathname: string): boolean {
  if (item.type === 'link') return isPathActive(item.path, pathname);
  if (item.type === 'group') return item.children.some((child) => groupContainsPath(child, pathname));
  return false;
}

/**
 * i18n keys to try for an item's text: links carry a route titleKey (`routes.*`); labels,
 * groups and external links carry a menu key (`menu.*`), with the route title as a fallback.
 */
export function labelKeys(item: MenuItem): string[] {
  return item.type === 'link' ? [`routes.${item.key}`, `menu.${item.key}`] : [`menu.${item.key}`, `routes.${item.key}`];
}

/** PrimeIcons class for an item icon; accepts 'pi pi-home', 'pi-home' or 'home'. */
export function iconClass(icon: string | undefined, fallback = 'pi pi-circle'): string {
  if (!icon || !icon.trim()) return fallback;
  const value = icon.trim();
  if (value.startsWith('pi ')) return value;
  if (value.startsWith('pi-')) return `pi ${value}`;
  if (/^[a-z0-9-]+$/.test(value)) return `pi pi-${value}`;
  return fallback;
}

/** Only http(s) and mailto links may leave the console. */
export function isSafeExternalUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' || parsed.protocol === 'mailto:';
  } catch {
    return false;
  }
}
