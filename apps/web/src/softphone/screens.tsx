import { lazy, type ComponentType } from 'react';
import type { AppRoute } from '@centralita/contracts';

const SoftphonePage = lazy(() => import('./SoftphonePage').then((module) => ({ default: module.SoftphonePage })));

/** Console routes served by the softphone (lazy: sip.js stays out of the other chunks). */
export const SOFTPHONE_SCREENS: Record<string, ComponentType<{ route: AppRoute }>> = {
  '/SoftPhoneNew/Phone': SoftphonePage,
};
