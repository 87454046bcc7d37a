import { useEffect, useState } from 'react';
import type { ConversationView, MessageView, ReplyWindowView, TemplateView } from '@centralita/contracts';
import type { DeskApi } from './desk-api';
import { hasReplyWindow, replyWindowState, type ReplyWindowState } from './logic/reply-window';

export interface ReplyWindow {
  /** null for channels without a window (web chat, Telegram, X) or none selected. */
  state: ReplyWindowState | null;
  /** The account's approved templates once the window closed: null while loading. */
  templates: TemplateView[] | null;
  templatesError: unknown;
  error: unknown;
  reload: () => void;
}

/**
 * The selected conversation's reply window (GET /api/conversations/:id/reply-window), read when the
 * chat opens and again whenever the customer writes (a new customer message reopens it), and the
 * account's templates when only a template may go. `now` is the server clock: the banner turns to
 * "closed" at the minute the window ends, without another read.
 */
export function useReplyWindow(
  api: DeskApi,
  conversation: ConversationView | null,
  messages: readonly MessageView[],
  now: number,
): ReplyWindow {
  const [view, setView] = useState<ReplyWindowView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [templates, setTemplates] = useState<TemplateView[] | null>(null);
  const [templatesError, setTemplatesError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  const id = conversation && hasReplyWindow(conversation.channel) ? conversation.id : null;
  const lastCustomerMessage = messages.filter((message) => message.senderKind === 'customer').at(-1)?.id ?? null;

  useEffect(() => {
    if (!id) {
      setView(null);
      return;
    }
    let live = true;
    setError(null);
    api
      .replyWindow(id)
      .then((found) => {
        if (live) setView(found);
      })
      .catch((failure: unknown) => {
        if (live) setError(failure);
      });
    return () => {
      live = false;
    };
  }, [api, id, lastCustomerMessage, attempt]);

  const current = view && view.conversationId === id ? view : null;
  const state = id ? (error && !current ? null : replyWindowState(current, now)) : null;
  const needsTemplates = state?.kind === 'closed' && state.templates;

  useEffect(() => {
    if (!needsTemplates || !id) {
      setTemplates(null);
      return;
    }
    let live = true;
    setTemplatesError(null);
    api
      .templates(id)
      .then((list) => {
        if (live) setTemplates(list);
      })
      .catch((failure: unknown) => {
        if (live) setTemplatesError(failure);
      });
    return () => {
      live = false;
    };
  }, [api, needsTemplates, id, attempt]);

  return {
    state,
    templates,
    templatesError,
    error: id ? error : null,
    reload: () => setAttempt((n) => n + 1),
  };
}
