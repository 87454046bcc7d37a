import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import type { AgentView, ConversationView, MessageView, NoteView } from '@centralita/contracts';
import { isApiError } from '../api/api-error';
import { useAuth, useServices } from '../app/ServicesContext';
import type { DeskApi, PauseReason } from './desk-api';
import { applyReadMark, concernsAgentDesk, VersionStore } from './logic/version-store';
import { applyMessageUpdate, mergeDelivered } from './logic/delivery';
import { loggedOutView } from './logic/machines';
import { supervisorNotice } from './logic/supervisor-notice';
import { useTranslation } from 'react-i18next';
import { useToast } from '../toast/ToastProvider';
import { connectStaff, type RealtimeConnection, type StaffSocket } from './realtime/socket-client';

export type ConnectionStatus = 'connecting' | 'online' | 'offline';

export interface AgentDeskState {
  me: { id: string; tenantId: string };
  presence: AgentView | null;
  pauseReasons: PauseReason[];
  conversations: ConversationView[];
  messages: Record<string, MessageView[]>;
  notes: Record<string, NoteView[]>;
  unread: Record<string, number>;
  typing: Record<string, boolean>;
  loading: boolean;
  connection: ConnectionStatus;
  selectedId: string | null;
}

/**
 * The agent's live desk: presence, the conversations they hold, messages, typing and read marks,
 * kept in versioned stores fed by the socket and resynced over REST after a reconnect that may have
 * missed events. Nothing here decides a state: views come from the API (ARCHITECTURE.md).
 */
export function useAgentDesk(api: DeskApi, onAssigned: (conversation: ConversationView) => void) {
  const { user } = useAuth();
  const { session } = useServices();
  // A supervisor's force pause / logout is told to the agent (why their state changed).
  const { t } = useTranslation();
  const toast = useToast();
  const noticeRef = useRef({ t, toast });
  noticeRef.current = { t, toast };
  const me = useMemo(() => ({ id: user?.id ?? '', tenantId: user?.clientId ?? '' }), [user?.id, user?.clientId]);
  const [, render] = useReducer((n: number) => n + 1, 0);
  const conversations = useRef(new VersionStore<ConversationView>((view) => view.id)).current;
  const presence = useRef(new VersionStore<AgentView>((view) => view.agentId)).current;
  const [pauseReasons, setPauseReasons] = useState<PauseReason[]>([]);
  const [messages, setMessages] = useState<Record<string, MessageView[]>>({});
  const [notes, setNotes] = useState<Record<string, NoteView[]>>({});
  const [unread, setUnread] = useState<Record<string, number>>({});
  const seenCustomerMessages = useRef(new Set<string>());
  const [typing, setTyping] = useState<Record<string, boolean>>({});
  const [loading, setLoading] = useState(true);
  const [connection, setConnection] = useState<ConnectionStatus>('connecting');
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const connectionRef = useRef<RealtimeConnection<StaffSocket> | null>(null);
  const selectedRef = useRef<string | null>(null);
  selectedRef.current = selectedId;
  const assignedRef = useRef(onAssigned);
  assignedRef.current = onAssigned;
  const typingTimers = useRef<Record<string, number>>({});

  const loadConversation = useCallback(
    async (id: string) => {
      await connectionRef.current?.join({ kind: 'conversation', id });
      const [list, noteList] = await Promise.all([api.messages(id), api.notes(id).catch(() => [] as NoteView[])]);
      setMessages((held) => ({ ...held, [id]: mergeDelivered(held[id] ?? [], list) }));
      setNotes((held) => ({ ...held, [id]: noteList }));
      // What the customer wrote before the agent had the chat (while queued, or to a colleague) and
      // nobody read is unread here too: the badge counts it when the chat arrives.
      const pending = list.filter((message) => message.senderKind === 'customer' && !message.readAt).length;
      if (selectedRef.current !== id) setUnread((held) => ({ ...held, [id]: pending }));
    },
    [api],
  );

  const resync = useCallback(async () => {
    try {
      const [reasons, mine, current] = await Promise.all([
        api.pauseReasons().catch(() => [] as PauseReason[]),
        api.myConversations(),
        api.presence().catch((error: unknown) => {
          if (isApiError(error) && error.status === 404) return loggedOutView(me.id, me.tenantId);
          throw error;
        }),
      ]);
      setPauseReasons(reasons);
      presence.accept(current);
      conversations.acceptAll(mine);
      // Conversations no longer held (closed or moved while away) leave the list.
      const held = new Set(mine.map((view) => view.id));
      for (const view of conversations.values()) {
        if (!held.has(view.id) && view.status === 'Active' && view.agentId === me.id) conversations.delete(view.id);
      }
      await Promise.all(mine.map((view) => loadConversation(view.id).catch(() => undefined)));
    } finally {
      setLoading(false);
      render();
    }
  }, [api, conversations, presence, loadConversation, me.id, me.tenantId]);

  useEffect(() => {
    if (!me.id) return;
    const connection = connectStaff(() => session.getAccessToken(), { onResync: () => void resync(), onStatus: setConnection });
    connectionRef.current = connection;
    const { socket } = connection;
    socket.on('conversation.updated', (view) => {
      if (!concernsAgentDesk(view, me.id, conversations)) return;
      const before = conversations.get(view.id);
      if (!conversations.accept(view)) return;
      const newlyMine = view.status === 'Active' && view.agentId === me.id && !(before?.status === 'Active' && before.agentId === me.id);
      if (newlyMine) {
        assignedRef.current(view);
        void loadConversation(view.id).catch(() => undefined);
      }
      render();
    });
    socket.on('agent.updated', (view) => {
      if (view.agentId !== me.id) return;
      const notice = supervisorNotice(presence.get(view.agentId), view);
      if (!presence.accept(view)) return;
      if (notice) {
        const { t: translate, toast: notify } = noticeRef.current;
        const reason = notice.reasonId ? translate(`desk.pauseReasons.${notice.reasonId}`, { defaultValue: notice.reasonId }) : '';
        notify.warn(translate(notice.key, { reason }));
      }
      render();
    });
    socket.on('message.created', (message) => {
      setMessages((held) => ({ ...held, [message.conversationId]: mergeDelivered(held[message.conversationId] ?? [], [message]) }));
      if (message.senderKind === 'customer') {
        setTyping((held) => ({ ...held, [message.conversationId]: false }));
        // The chat on screen is marked read by the effect below; any other counts as unread.
        // The outbox delivers at least once: a repeated push of the same message counts once.
        const repeated = seenCustomerMessages.current.has(message.id);
        seenCustomerMessages.current.add(message.id);
        if (!repeated && (selectedRef.current !== message.conversationId || document.visibilityState !== 'visible')) {
          setUnread((held) => ({ ...held, [message.conversationId]: (held[message.conversationId] ?? 0) + 1 }));
        }
      }
    });
    // A delivery status moved (the worker's send, a provider receipt): only forward, per message.
    socket.on('message.updated', (message) => {
      setMessages((held) => {
        const list = held[message.conversationId];
        if (!list) return held;
        const next = applyMessageUpdate(list, message);
        return next === list ? held : { ...held, [message.conversationId]: [...next] };
      });
    });
    socket.on('note.created', (note) => {
      setNotes((held) => {
        const list = held[note.conversationId] ?? [];
        return list.some((entry) => entry.id === note.id) ? held : { ...held, [note.conversationId]: [...list, note] };
      });
    });
    socket.on('typing', (view) => {
      if (view.senderKind !== 'customer') return;
      setTyping((held) => ({ ...held, [view.conversationId]: view.typing }));
      window.clearTimeout(typingTimers.current[view.conversationId]);
      // A lost "stopped typing" must not leave the indicator on for ever.
      if (view.typing) {
        typingTimers.current[view.conversationId] = window.setTimeout(
          () => setTyping((held) => ({ ...held, [view.conversationId]: false })),
          8000,
        );
      }
    });
    socket.on('message.read', (view) => {
      if (view.readerKind !== 'customer') return;
      setMessages((held) => ({
        ...held,
        [view.conversationId]: applyReadMark(held[view.conversationId] ?? [], 'customer', view.upToSequence, new Date().toISOString()),
      }));
    });
    return () => {
      connection.close();
      connectionRef.current = null;
    };
  }, [me.id, session, resync, conversations, presence, loadConversation, api]);

  const select = useCallback((id: string) => {
    setSelectedId(id);
    setUnread((held) => ({ ...held, [id]: 0 }));
  }, []);

  /** Applies an answer of the API (same versioned door as the socket). */
  const acceptConversation = useCallback(
    (view: ConversationView) => {
      if (conversations.accept(view)) render();
    },
    [conversations],
  );
  const acceptPresence = useCallback(
    (view: AgentView) => {
      if (presence.accept(view)) render();
    },
    [presence],
  );
  const acceptMessage = useCallback((message: MessageView) => {
    setMessages((held) => ({ ...held, [message.conversationId]: mergeDelivered(held[message.conversationId] ?? [], [message]) }));
  }, []);

  // Only what the agent holds now: a conversation transferred, closed or taken back (force logout)
  // leaves the list and the chat window at once, whatever the agent had selected.
  const visible = conversations
    .values()
    .filter((view) => isHeldBy(view, me.id))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const shown = nextSelection(selectedId, visible);

  // The selection follows what is held: when the open chat left (or none was open), the oldest
  // held one opens by itself, so a newly assigned chat opens when nothing else is open.
  useEffect(() => {
    if (shown !== selectedId) setSelectedId(shown);
  }, [shown, selectedId]);

  // The chat on screen is read: its badge clears and the read mark goes to the customer, once per message.
  const shownMessages = shown ? messages[shown] : undefined;
  const readSent = useRef<Record<string, number>>({});
  useEffect(() => {
    if (!shown || document.visibilityState !== 'visible') return;
    setUnread((held) => (held[shown] ? { ...held, [shown]: 0 } : held));
    const last = (shownMessages ?? []).filter((message) => message.senderKind === 'customer' && !message.readAt).at(-1);
    if (!last || (readSent.current[shown] ?? 0) >= last.sequence) return;
    readSent.current[shown] = last.sequence;
    void api.read(shown, last.sequence).catch(() => undefined);
  }, [shown, shownMessages, api]);

  const state: AgentDeskState = {
    me,
    presence: presence.get(me.id) ?? null,
    pauseReasons,
    conversations: visible,
    messages,
    notes,
    unread,
    typing,
    loading,
    connection,
    selectedId: shown,
  };
  return { state, select, acceptConversation, acceptPresence, acceptMessage, socket: () => connectionRef.current?.socket ?? null };
}

/** A conversation the agent works on now (their Active chat). */
export function isHeldBy(view: ConversationView, agentId: string): boolean {
  return view.status === 'Active' && view.agentId === agentId;
}

/** The chat to show: the one selected while it is still held, otherwise the oldest held one, or none. */
export function nextSelection(selectedId: string | null, held: readonly ConversationView[]): string | null {
  if (selectedId && held.some((view) => view.id === selectedId)) return selectedId;
  return held[0]?.id ?? null;
}
