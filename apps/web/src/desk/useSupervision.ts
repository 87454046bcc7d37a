import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import type {
  AgentView,
  CampaignQueueView,
  ConversationView,
  LineQueueView,
  MessageView,
  NoteView,
  SentimentAlertView,
} from '@centralita/contracts';
import { newerView } from '@centralita/contracts';
import { useTranslation } from 'react-i18next';
import { useToast } from '../toast/ToastProvider';
import { useServices } from '../app/ServicesContext';
import type { BoardAgent, DeskApi, PauseReason } from './desk-api';
import { applyReadMark, mergeMessages, VersionStore } from './logic/version-store';
import { applyMessageUpdate } from './logic/delivery';
import { connectStaff, type RealtimeConnection, type StaffSocket } from './realtime/socket-client';
import type { ConnectionStatus } from './useAgentDesk';

/** A queue as last pushed, with when it arrived (the longest wait keeps growing from there). */
export type LiveQueue = LineQueueView & { receivedAt: number };
export type LiveCampaignQueue = CampaignQueueView & { receivedAt: number };

/**
 * Live supervision: every conversation, queue and agent of the tenant (the supervisor's socket is
 * in the tenant room), versioned stores, REST resync after a reconnect that may have missed events.
 */
export function useSupervision(api: DeskApi, showAll: boolean) {
  const { session } = useServices();
  const { t } = useTranslation();
  const toast = useToast();
  const noticeRef = useRef({ t, toast });
  noticeRef.current = { t, toast };
  const [alerts, setAlerts] = useState<SentimentAlertView[]>([]);
  const [, render] = useReducer((n: number) => n + 1, 0);
  const conversations = useRef(new VersionStore<ConversationView>((view) => view.id)).current;
  const agents = useRef(new VersionStore<AgentView>((view) => view.agentId)).current;
  const [queues, setQueues] = useState<Record<string, LiveQueue>>({});
  const [campaignQueues, setCampaignQueues] = useState<Record<string, LiveCampaignQueue>>({});
  const [pauseReasons, setPauseReasons] = useState<PauseReason[]>([]);
  const [loading, setLoading] = useState(true);
  const [connection, setConnection] = useState<ConnectionStatus>('connecting');
  const [watched, setWatched] = useState<string | null>(null);
  const [messages, setMessages] = useState<MessageView[]>([]);
  const [notes, setNotes] = useState<NoteView[]>([]);
  /** Bumped when the watched conversation's call moves (voiceCall.updated) or after a resync: the monitoring bar re-reads it. */
  const [callChange, setCallChange] = useState(0);
  const [typing, setTyping] = useState(false);
  const connectionRef = useRef<RealtimeConnection<StaffSocket> | null>(null);
  const watchedRef = useRef<string | null>(null);
  watchedRef.current = watched;
  const showAllRef = useRef(showAll);
  showAllRef.current = showAll;

  const loadWatched = useCallback(
    async (id: string) => {
      await connectionRef.current?.join({ kind: 'conversation', id });
      const [list, noteList] = await Promise.all([api.supervisorMessages(id), api.notes(id).catch(() => [] as NoteView[])]);
      if (watchedRef.current !== id) return;
      setMessages((held) => mergeMessages(held, list));
      setNotes(noteList);
    },
    [api],
  );

  const resync = useCallback(async () => {
    try {
      const [board, reasons, all] = await Promise.all([
        api.board(),
        api.pauseReasons().catch(() => [] as PauseReason[]),
        showAllRef.current ? api.conversations({ showAll: true }) : Promise.resolve([] as ConversationView[]),
      ]);
      agents.acceptAll(board.agents.map(stripBoard));
      conversations.acceptAll(board.conversations);
      conversations.acceptAll(all);
      setQueues(Object.fromEntries(board.queues.map((queue) => [queue.attentionLineId, { ...queue, receivedAt: Date.now() }])));
      setCampaignQueues(
        Object.fromEntries((board.campaignQueues ?? []).map((queue) => [queue.campaignId, { ...queue, receivedAt: Date.now() }])),
      );
      setPauseReasons(reasons);
      if (watchedRef.current) await loadWatched(watchedRef.current).catch(() => undefined);
      setCallChange((count) => count + 1);
    } finally {
      setLoading(false);
      render();
    }
  }, [api, agents, conversations, loadWatched]);

  useEffect(() => {
    if (showAll)
      void api
        .conversations({ showAll: true })
        .then((all) => conversations.acceptAll(all) && render())
        .catch(() => undefined);
  }, [api, conversations, showAll]);

  useEffect(() => {
    const connection = connectStaff(() => session.getAccessToken(), { onResync: () => void resync(), onStatus: setConnection });
    connectionRef.current = connection;
    const { socket } = connection;
    socket.on('conversation.updated', (view) => {
      if (conversations.accept(view)) render();
    });
    socket.on('agent.updated', (view) => {
      // The board lists active users (the REST board leaves deactivated ones out); an unknown agent
      // pushed as logged out is one of them, or one who has not logged in yet: neither belongs there.
      if (view.status === 'loggedOut' && !agents.get(view.agentId)) return;
      if (agents.accept(view)) render();
    });
    socket.on('sentiment.alert', (view) => {
      setAlerts((held) => [view, ...held.filter((alert) => alert.conversationId !== view.conversationId)].slice(0, 20));
      const { t: translate, toast: notify } = noticeRef.current;
      notify.warn(translate('dashboards.sentiment.alert', { name: view.customerName, score: view.rolling.toFixed(2) }));
    });
    // Pushes from different API processes may cross: a view replaces the held one only when newer (VIEW_VERSIONS).
    socket.on('queue.updated', (view) =>
      setQueues((held) =>
        newerView(held[view.attentionLineId], view) ? { ...held, [view.attentionLineId]: { ...view, receivedAt: Date.now() } } : held,
      ),
    );
    socket.on('campaignQueue.updated', (view) =>
      setCampaignQueues((held) =>
        newerView(held[view.campaignId], view) ? { ...held, [view.campaignId]: { ...view, receivedAt: Date.now() } } : held,
      ),
    );
    socket.on('message.created', (message) => {
      if (message.conversationId === watchedRef.current) setMessages((held) => mergeMessages(held, [message]));
    });
    // Delivery marks move live for the supervisor too (only forward: see acceptMessageUpdate).
    socket.on('message.updated', (message) => {
      if (message.conversationId === watchedRef.current)
        setMessages((held) => {
          const next = applyMessageUpdate(held, message);
          return next === held ? held : [...next];
        });
    });
    socket.on('voiceCall.updated', (view) => {
      if (view.conversationId === watchedRef.current) setCallChange((count) => count + 1);
    });
    socket.on('note.created', (note) => {
      if (note.conversationId === watchedRef.current)
        setNotes((held) => (held.some((entry) => entry.id === note.id) ? held : [...held, note]));
    });
    socket.on('typing', (view) => {
      if (view.conversationId === watchedRef.current && view.senderKind === 'customer') setTyping(view.typing);
    });
    socket.on('message.read', (view) => {
      if (view.conversationId === watchedRef.current) {
        setMessages((held) => applyReadMark(held, view.readerKind, view.upToSequence, new Date().toISOString()));
      }
    });
    return () => {
      connection.close();
      connectionRef.current = null;
    };
  }, [session, resync, conversations, agents]);

  const watch = useCallback(
    (id: string | null) => {
      const previous = watchedRef.current;
      if (previous && previous !== id) connectionRef.current?.socket.emit('leave', { kind: 'conversation', id: previous }, () => undefined);
      watchedRef.current = id;
      setWatched(id);
      setMessages([]);
      setNotes([]);
      setTyping(false);
      if (id) void loadWatched(id).catch(() => undefined);
    },
    [loadWatched],
  );

  const dismissAlert = useCallback(
    (conversationId: string) => setAlerts((held) => held.filter((alert) => alert.conversationId !== conversationId)),
    [],
  );
  const acceptConversation = useCallback((view: ConversationView) => conversations.accept(view) && render(), [conversations]);
  const acceptAgent = useCallback((view: AgentView) => agents.accept(view) && render(), [agents]);
  const acceptNote = useCallback(
    (note: NoteView) => setNotes((held) => (held.some((entry) => entry.id === note.id) ? held : [...held, note])),
    [],
  );

  return {
    conversations: conversations.values(),
    agents: agents.values(),
    queues: Object.values(queues),
    campaignQueues: Object.values(campaignQueues),
    pauseReasons,
    loading,
    connection,
    watched,
    messages,
    notes,
    callChange,
    typing,
    watch,
    acceptConversation,
    acceptAgent,
    acceptNote,
    alerts,
    dismissAlert,
  };
}

function stripBoard(agent: BoardAgent): AgentView {
  const { timeInStateMs: _ignored, ...view } = agent;
  return view;
}
