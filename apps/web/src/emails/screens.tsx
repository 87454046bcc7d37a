import { lazy, type ComponentType } from 'react';
import type { AppRoute } from '@centralita/contracts';

/** Console routes of the email area (issue 20 item 4), loaded on demand. */
export const EMAILS_SCREENS: Record<string, ComponentType<{ route: AppRoute }>> = {
  '/emails/SendEmail': lazy(() => import('./SendEmailPage')),
};
