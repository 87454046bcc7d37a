import type { AppRoute } from '@centralita/contracts';

export const CAPABILITY_ICONS: Record<AppRoute['capability'], string> = {
  foundation: 'pi pi-th-large',
  realtime: 'pi pi-bolt',
  desk: 'pi pi-comments',
  admin: 'pi pi-cog',
  dashboards: 'pi pi-chart-bar',
  outbound: 'pi pi-phone',
  crm: 'pi pi-briefcase',
  video: 'pi pi-video',
  demo: 'pi pi-palette',
};
