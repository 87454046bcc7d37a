import { lazy, type ComponentType } from 'react';
import type { AppRoute } from '@centralita/contracts';

const AgentDeskPage = lazy(() => import('./AgentDeskPage').then((module) => ({ default: module.AgentDeskPage })));
const SupervisorPage = lazy(() => import('./SupervisorPage').then((module) => ({ default: module.SupervisorPage })));

/** Console routes served by the agent desk and live supervision (lazy: their own chunk). */
export const DESK_SCREENS: Record<string, ComponentType<{ route: AppRoute }>> = {
  '/conversations/agentConversations': AgentDeskPage,
  '/chat/agent': AgentDeskPage,
  '/dashboard/DashboardAgente': AgentDeskPage,
  '/conversations/conversations': SupervisorPage,
  '/dashboard/superUser': SupervisorPage,
  '/livePersonConversations/ConversationList': SupervisorPage,
  '/livePersonConversations/LivePersonWindowChat': SupervisorPage,
};
