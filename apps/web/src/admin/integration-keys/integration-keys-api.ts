import type { CreatedIntegrationKey, IntegrationKeyInput, IntegrationKeySummary } from '@centralita/contracts';
import type { ApiClient } from '../../api/http-client';

/** REST calls of the integration keys screen (/api/integration-keys). */
export function createIntegrationKeysApi(client: ApiClient) {
  return {
    list: () => client.get<IntegrationKeySummary[]>('/api/integration-keys'),
    create: (body: IntegrationKeyInput) => client.post<CreatedIntegrationKey>('/api/integration-keys', body),
    revoke: (id: string) => client.request<unknown>(`/api/integration-keys/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  };
}
