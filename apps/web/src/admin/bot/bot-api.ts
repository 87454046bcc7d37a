import type {
  BotAnswerView,
  BotSettings,
  BotSettingsView,
  BotSummaryView,
  BotSynonymGroup,
  BotUnansweredView,
  ConversationView,
  Page,
  QnaSummary,
} from '@centralita/contracts';
import type { ApiClient } from '../../api/http-client';

/** REST calls of the bot screen and the desk's bot summary (/api/bot). */
export function createBotApi(client: ApiClient) {
  const line = (id: string) => `/api/bot/lines/${encodeURIComponent(id)}`;
  return {
    lines: () => client.get<Page<{ id: string; name: string }>>('/api/attention-lines', { query: { pageSize: 200, sortField: 'name' } }),
    settings: (lineId: string) => client.get<BotSettingsView>(line(lineId)),
    save: (lineId: string, body: Partial<BotSettings>) => client.request<BotSettingsView>(line(lineId), { method: 'PUT', body }),
    test: (attentionLineId: string, text: string) => client.post<BotAnswerView>('/api/bot/test', { attentionLineId, text }),
    unanswered: (resolved: boolean) => client.get<BotUnansweredView[]>('/api/bot/unanswered', { query: { resolved: String(resolved) } }),
    resolve: (id: string, resolved: boolean) =>
      client.post<{ resolved: boolean }>(`/api/bot/unanswered/${encodeURIComponent(id)}/resolve`, { resolved }),
    createQna: (question: string, answer: string) => client.post<QnaSummary>('/api/qna', { question, answer }),
    synonyms: () => client.get<BotSynonymGroup[]>('/api/bot/synonyms'),
    saveSynonyms: (groups: BotSynonymGroup[]) =>
      client.request<BotSynonymGroup[]>('/api/bot/synonyms', { method: 'PUT', body: { groups } }),
    summary: (conversationId: string) => client.get<BotSummaryView | null>(`/api/bot/conversations/${encodeURIComponent(conversationId)}`),
  };
}

/** The widget's "talk to a person" (visitor token). */
export const BOT_HANDOFF_PATH = '/api/webchat/conversation/bot/handoff';
export type { ConversationView };
