import type { ComponentType } from 'react';
import type { AppRoute } from '@centralita/contracts';

/** Console routes served by the outbound area (spec §2), each loaded on demand with React.lazy. */
export const OUTBOUND_SCREENS: Record<string, ComponentType<{ route: AppRoute }>> = {};
