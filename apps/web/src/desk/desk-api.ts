import type {
  AgentView,
  ChannelKindView,
  ReplyWindowView,
  TemplateMessageInput,
  TemplateView,
  ClockReading,
  ConversationContext,
  ConversationView,
  LineQueueView,
  CampaignQueueView,
  SurveyView,
  MessageView,
  NoteView,
  PredefinedMessageSummary,
  QueuePositionView,
  StartChatResult,
  TransferTargets,
  VoiceConsultView,
  VoiceMonitorMode,
  VoiceMonitorStatus,
  WebchatLineView,
} from '@centralita/contracts';
import { createApiClient, readEnvelope, type ApiClient } from '../api/http-client';
import type { TokenSource } from '../api/http-client';

export interface PauseReason {
  code: string;
  label: string;
}

export interface BoardAgent extends AgentView {
  timeInStateMs: number;
}

export interface Board {
  agents: BoardAgent[];
  queues: LineQueueView[];
  campaignQueues: CampaignQueueView[];
  conversations: ConversationView[];
}

export interface VisitorConversation {
  conversation: ConversationView;
  messages: MessageView[];
  queue: QueuePositionView | null;
  /** The agent answering now (display name), null while nobody does. */
  agentName: string | null;
}

export interface SupervisorFilter {
  status?: string;
  attentionLineId?: string;
  agentId?: string;
  channel?: string;
  showAll?: boolean;
}

/** Staff calls of the agent desk and live supervision (apps/api conversations module). */
export function createDeskApi(client: ApiClient) {
  const id = encodeURIComponent;
  // State-changing actions: one Idempotency-Key per call, re-sent by the client's retries (http-client.ts).
  const once = { idempotent: true } as const;
  return {
    clock: () => client.get<ClockReading>('/api/clock', { query: { clientTime: Date.now() } }),
    pauseReasons: () => client.get<PauseReason[]>('/api/agent/pause-reasons'),
    presence: () => client.get<AgentView>('/api/agent/presence'),
    login: (campaignId?: string) => client.post<AgentView>('/api/agent/presence/login', campaignId ? { campaignId } : {}, once),
    campaigns: () => client.get<{ id: string; name: string }[]>('/api/agent/campaigns'),
    available: () => client.post<AgentView>('/api/agent/presence/available', {}, once),
    pause: (reasonId: string) => client.post<AgentView>('/api/agent/presence/pause', { reasonId }, once),
    logout: () => client.post<AgentView>('/api/agent/presence/logout', {}, once),
    myConversations: () => client.get<ConversationView[]>('/api/agent/conversations'),
    messages: (conversationId: string, after = 0) =>
      client.get<MessageView[]>(`/api/agent/conversations/${id(conversationId)}/messages`, { query: { after } }),
    send: (conversationId: string, text: string, clientMessageId: string) =>
      client.post<MessageView>(`/api/agent/conversations/${id(conversationId)}/messages`, { text, clientMessageId }, once),
    typing: (conversationId: string, typing: boolean) =>
      client.post<{ typing: boolean }>(`/api/agent/conversations/${id(conversationId)}/typing`, { typing }),
    read: (conversationId: string, upToSequence: number) =>
      client.post<{ read: number }>(`/api/agent/conversations/${id(conversationId)}/read`, { upToSequence }),
    transfer: (conversationId: string, target: { attentionLineId?: string; agentId?: string }) =>
      client.post<ConversationView>(`/api/agent/conversations/${id(conversationId)}/transfer`, target, once),
    close: (conversationId: string, disposition: string) =>
      client.post<ConversationView>(`/api/agent/conversations/${id(conversationId)}/close`, { disposition }, once),
    context: (conversationId: string) => client.get<ConversationContext>(`/api/agent/conversations/${id(conversationId)}/context`),
    notes: (conversationId: string) => client.get<NoteView[]>(`/api/conversations/${id(conversationId)}/notes`),
    addNote: (conversationId: string, text: string) => client.post<NoteView>(`/api/conversations/${id(conversationId)}/notes`, { text }),
    predefinedMessages: () => client.get<PredefinedMessageSummary[]>('/api/predefined-messages/usable'),
    emoticons: () => client.get<string[]>('/api/agent/emoticons'),
    transferTargets: () => client.get<TransferTargets>('/api/agent/transfer-targets'),
    // Messaging channels: what each kind accepts, the reply window, templates and attachments.
    channelKinds: () => client.get<ChannelKindView[]>('/api/channel-kinds'),
    replyWindow: (conversationId: string) => client.get<ReplyWindowView>(`/api/conversations/${id(conversationId)}/reply-window`),
    /** The approved templates of the conversation's channel account (WhatsApp). */
    templates: (conversationId: string) => client.get<TemplateView[]>(`/api/conversations/${id(conversationId)}/templates`),
    sendTemplate: (conversationId: string, input: TemplateMessageInput) =>
      client.post<MessageView>(`/api/conversations/${id(conversationId)}/template-messages`, input, once),
    /** A template whose media header is a file the agent picked (multipart: the file and the input as JSON). */
    sendTemplateWithFile: (conversationId: string, input: TemplateMessageInput, file: File) => {
      const form = new FormData();
      form.append('template', JSON.stringify(input));
      form.append('file', file, file.name);
      return client.post<MessageView>(`/api/conversations/${id(conversationId)}/template-messages/media`, undefined, { rawBody: form });
    },
    attachmentUploadPath: (conversationId: string) => `/api/conversations/${id(conversationId)}/attachments`,
    /** An attachment's bytes (its view's staff `url`, bearer): shown through a blob URL, never by its address. */
    attachment: async (url: string) => (await client.download(url)).blob(),
    // Supervision
    board: () => client.get<Board>('/api/supervisor/board'),
    conversations: (filter: SupervisorFilter) =>
      client.get<ConversationView[]>('/api/supervisor/conversations', {
        query: { ...filter, showAll: filter.showAll ? 'true' : undefined },
      }),
    supervisorMessages: (conversationId: string) => client.get<MessageView[]>(`/api/agent/conversations/${id(conversationId)}/messages`),
    reassign: (conversationId: string, target: { attentionLineId?: string; agentId?: string }) =>
      client.post<ConversationView>(`/api/supervisor/conversations/${id(conversationId)}/reassign`, target, once),
    forcePause: (agentId: string, reasonId: string) =>
      client.post<AgentView>(`/api/supervisor/agents/${id(agentId)}/pause`, { reasonId }, once),
    forceLogout: (agentId: string) => client.post<AgentView>(`/api/supervisor/agents/${id(agentId)}/logout`, {}, once),
    // Monitoring a live phone call (listen, whisper, barge) with the supervisor's own softphone
    monitorStatus: (conversationId: string) => client.get<VoiceMonitorStatus>(`/api/voice/conversations/${id(conversationId)}/monitor`),
    startMonitor: (conversationId: string, mode: VoiceMonitorMode) =>
      client.post<unknown>(`/api/voice/conversations/${id(conversationId)}/monitor`, { mode }),
    switchMonitor: (conversationId: string, mode: VoiceMonitorMode) =>
      client.request<unknown>(`/api/voice/conversations/${id(conversationId)}/monitor`, { method: 'PATCH', body: { mode } }),
    stopMonitor: (conversationId: string) =>
      client.request<unknown>(`/api/voice/conversations/${id(conversationId)}/monitor`, { method: 'DELETE' }),
    // Attended transfer of the agent's own live phone call (consult a colleague, then complete or cancel)
    consultStatus: (conversationId: string) =>
      client.get<VoiceConsultView>(`/api/voice/conversations/${id(conversationId)}/transfer/consult`),
    startConsult: (conversationId: string, target: { attentionLineId?: string; agentId?: string }) =>
      client.post<VoiceConsultView>(`/api/voice/conversations/${id(conversationId)}/transfer/consult`, target),
    completeConsult: (conversationId: string) =>
      client.post<VoiceConsultView>(`/api/voice/conversations/${id(conversationId)}/transfer/consult/complete`, {}),
    cancelConsult: (conversationId: string) =>
      client.request<VoiceConsultView>(`/api/voice/conversations/${id(conversationId)}/transfer/consult`, { method: 'DELETE' }),
  };
}
export type DeskApi = ReturnType<typeof createDeskApi>;

/** The web-chat customer's calls; the visitor token (not a staff session) is the bearer. */
export function createVisitorApi(getToken: () => string | null) {
  const tokens: TokenSource = { getAccessToken: getToken, getRefreshToken: () => null, getUserId: () => null, saveTokens: () => undefined };
  const client = createApiClient({ baseUrl: '', fetch: (input, init) => window.fetch(input, init), tokens });
  const opts = { refreshOnUnauthorized: false } as const;
  // The visitor's actions: one Idempotency-Key per call, re-sent by the client's retries (http-client.ts).
  const once = { ...opts, idempotent: true } as const;
  return {
    branding: (clientId: string) =>
      client.get<{ logoUrl: string; completeLogoUrl: string; mainColor?: string | null }>('/api/general/branding', {
        query: { clientId },
        auth: false,
      }),
    start: (attentionLineId: string, name: string, email: string | undefined) =>
      client.post<StartChatResult>('/api/webchat/conversations', { attentionLineId, name, email }, { auth: false }),
    get: () => client.get<VisitorConversation>('/api/webchat/conversation', opts),
    menu: (queryTypeId: string, submenuId: string) =>
      client.post<ConversationView>('/api/webchat/conversation/menu', { queryTypeId, submenuId }, once),
    messages: (after = 0) => client.get<MessageView[]>('/api/webchat/conversation/messages', { ...opts, query: { after } }),
    send: (text: string, clientMessageId: string) =>
      client.post<MessageView>('/api/webchat/conversation/messages', { text, clientMessageId }, once),
    typing: (typing: boolean) => client.post<{ typing: boolean }>('/api/webchat/conversation/typing', { typing }, opts),
    read: (upToSequence: number) => client.post<{ read: number }>('/api/webchat/conversation/read', { upToSequence }, opts),
    line: (attentionLineId: string) =>
      client.get<WebchatLineView>(`/api/webchat/lines/${encodeURIComponent(attentionLineId)}`, { auth: false }),
    surveyQuestions: () => client.get<SurveyView>('/api/webchat/conversation/survey', opts),
    survey: (questionId: string, answer: string, last: boolean) =>
      client.post<ConversationView>('/api/webchat/conversation/survey', { questionId, answer, last }, once),
    leave: () => client.post<ConversationView>('/api/webchat/conversation/leave', {}, once),
    /** Leaves the line's bot for a person (issue 23): queued on the line. */
    botHandoff: () => client.post<ConversationView>('/api/webchat/conversation/bot/handoff', {}, opts),
    attachmentUploadPath: '/api/webchat/conversation/attachments',
    /** The visitor's own attachment (agent replies and their uploads), with the visitor token. */
    attachment: async (attachmentId: string) => {
      const response = await window.fetch(`/api/webchat/conversation/attachments/${encodeURIComponent(attachmentId)}`, {
        headers: { Authorization: `Bearer ${getToken() ?? ''}`, Accept: '*/*' },
      });
      if (!response.ok) await readEnvelope(response);
      return response.blob();
    },
  };
}
export type VisitorApi = ReturnType<typeof createVisitorApi>;

/** A client-chosen id so a message retried after a network error is stored once. */
export function newClientMessageId(): string {
  const random =
    typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  return `m-${random}`.slice(0, 64);
}
