import type {
  CaseActivityKind,
  CaseDetail,
  CaseInput,
  CaseOptions,
  CaseSummary,
  CaseTranscript,
  ConversationCase,
  GeoArea,
  GeoLevel,
  Page,
} from '@centralita/contracts';
import type { ApiClient, Query } from '../api/http-client';

/** The CRM calls of the console (/api/cases/...). */
export function createCrmApi(client: ApiClient) {
  const put = <T>(path: string, body: unknown) => client.request<T>(path, { method: 'PUT', body });
  const del = <T>(path: string) => client.request<T>(path, { method: 'DELETE' });
  return {
    options: () => client.get<CaseOptions>('/api/cases/options'),
    geo: (level: GeoLevel, parentId: string) => client.get<GeoArea[]>('/api/cases/geo', { query: { level, parentId } }),
    list: (query: Query) => client.get<Page<CaseSummary>>('/api/cases', { query }),
    get: (id: string) => client.get<CaseDetail>(`/api/cases/${id}`),
    create: (input: Partial<CaseInput> & { conversationId?: string }) => client.post<CaseDetail>('/api/cases', input),
    update: (id: string, input: Partial<CaseInput>) => put<CaseDetail>(`/api/cases/${id}`, input),
    addNote: (id: string, text: string, mentions: string[]) => client.post<CaseDetail>(`/api/cases/${id}/notes`, { text, mentions }),
    addActivity: (id: string, body: { kind: CaseActivityKind; title: string; dueAt: string | null; assigneeId: string | null }) =>
      client.post<CaseDetail>(`/api/cases/${id}/activities`, body),
    setActivityDone: (id: string, activityId: string, done: boolean) =>
      put<CaseDetail>(`/api/cases/${id}/activities/${activityId}`, { done }),
    assign: (id: string, userId: string) => client.post<CaseDetail>(`/api/cases/${id}/assignees`, { userId }),
    unassign: (id: string, userId: string) => del<CaseDetail>(`/api/cases/${id}/assignees/${userId}`),
    transcript: (id: string, conversationId: string) =>
      client.get<CaseTranscript>(`/api/cases/${id}/conversations/${conversationId}/transcript`),
    byConversation: (conversationId: string) => client.get<ConversationCase>(`/api/cases/by-conversation/${conversationId}`),
    exportFile: (query: Query) => {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(query))
        if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
      return client.download(`/api/cases/export?${params.toString()}`);
    },
  };
}

export type CrmApi = ReturnType<typeof createCrmApi>;
