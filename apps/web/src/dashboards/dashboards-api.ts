import type {
  ActiveByAgentRow,
  AgentServiceRow,
  ComplianceRow,
  DashboardOptions,
  DashboardSettings,
  DashboardSummary,
  PauseDetailRow,
  QueuePositionRow,
  QueueStatusRow,
  SentimentReport,
  StaffingRow,
  TrendPoint,
} from '@centralita/contracts';
import type { ApiClient, Query } from '../api/http-client';

/** The dashboards calls of the console (GET/PUT /api/dashboards/...). */
export function createDashboardsApi(client: ApiClient) {
  return {
    settings: () => client.get<DashboardSettings>('/api/dashboards/settings'),
    saveSettings: (body: Partial<DashboardSettings>) =>
      client.request<DashboardSettings>('/api/dashboards/settings', { method: 'PUT', body }),
    options: () => client.get<DashboardOptions>('/api/dashboards/options'),
    summary: (query: Query) => client.get<DashboardSummary>('/api/dashboards/summary', { query }),
    trend: (query: Query) => client.get<TrendPoint[]>('/api/dashboards/trend', { query }),
    queues: (query: Query) => client.get<QueueStatusRow[]>('/api/dashboards/queues', { query }),
    agents: (query: Query) => client.get<AgentServiceRow[]>('/api/dashboards/agents', { query }),
    pauses: (query: Query) => client.get<PauseDetailRow[]>('/api/dashboards/pauses', { query }),
    compliance: (query: Query) => client.get<ComplianceRow[]>('/api/dashboards/compliance', { query }),
    staffing: (query: Query) => client.get<StaffingRow[]>('/api/dashboards/staffing', { query }),
    sentiment: (query: Query) => client.get<SentimentReport>('/api/dashboards/sentiment', { query }),
    activeByAgent: () => client.get<ActiveByAgentRow[]>('/api/dashboards/active-by-agent'),
    positions: (query: Query) => client.get<QueuePositionRow[]>('/api/dashboards/positions', { query }),
  };
}

export type DashboardsApi = ReturnType<typeof createDashboardsApi>;
