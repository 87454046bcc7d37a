import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import type { EmailMessageView, EmailReplyInput, MessageView } from '@centralita/contracts';
import type { AttachmentLoader } from '../Attachments';
import type { PredefinedOption } from '../ChatInput';
import { EmailComposer } from './EmailComposer';
import { EmailThread } from './EmailThread';
import type { EmailApi } from './email-api';
import { replySubject } from './email-logic';
import './email.css';

type Loaded = { status: 'loading' } | { status: 'error' } | { status: 'ready'; emails: EmailMessageView[] };

/**
 * The desk's email view of one conversation (issue 20): the thread and the reply composer. The
 * emails are read again whenever the conversation's messages change (a new mail, a reply's
 * delivery status), so pushes keep it current without a socket event of its own.
 */
export function EmailConversation({
  api,
  conversationId,
  messages,
  canReply,
  disabledReason,
  predefined,
  loadAttachment,
  onSent,
  onError,
}: {
  api: EmailApi;
  conversationId: string;
  messages: MessageView[];
  canReply: boolean;
  disabledReason?: string;
  predefined: PredefinedOption[] | null;
  loadAttachment: AttachmentLoader;
  onSent(message: MessageView): void;
  onError(error: unknown): void;
}) {
  const { t } = useTranslation();
  const [loaded, setLoaded] = useState<Loaded>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  // A change of any message (count, status) re-reads the emails.
  const version = useMemo(() => messages.map((message) => `${message.id}:${message.deliveryStatus ?? ''}`).join('|'), [messages]);

  const load = useCallback(
    (signal: { live: boolean }) =>
      api
        .emails(conversationId)
        .then((emails) => {
          if (signal.live) setLoaded({ status: 'ready', emails });
        })
        .catch(() => {
          if (signal.live) setLoaded((held) => (held.status === 'ready' ? held : { status: 'error' }));
        }),
    [api, conversationId],
  );

  useEffect(() => {
    setLoaded({ status: 'loading' });
  }, [conversationId]);

  useEffect(() => {
    const signal = { live: true };
    void load(signal);
    return () => {
      signal.live = false;
    };
  }, [load, version, attempt]);

  const send = async (input: EmailReplyInput, files: File[]) => {
    try {
      onSent(await api.reply(conversationId, input, files));
      setAttempt((n) => n + 1);
    } catch (error) {
      onError(error);
      throw error;
    }
  };

  return (
    <div className="email-conversation" data-testid="email-conversation">
      <div className="email-conversation__thread">
        {loaded.status === 'loading' && (
          <p className="muted" data-testid="email-loading">
            <i className="pi pi-spin pi-spinner" aria-hidden /> {t('email.loading')}
          </p>
        )}
        {loaded.status === 'error' && (
          <p className="field-error" role="alert" data-testid="email-load-failed">
            {t('email.loadFailed')}{' '}
            <Button type="button" text size="small" label={t('email.retry')} onClick={() => setAttempt((n) => n + 1)} />
          </p>
        )}
        {loaded.status === 'ready' && loaded.emails.length === 0 && (
          <p className="muted" data-testid="email-empty">
            {t('email.empty')}
          </p>
        )}
        {loaded.status === 'ready' && loaded.emails.length > 0 && (
          <EmailThread emails={loaded.emails} messages={messages} loadAttachment={loadAttachment} />
        )}
      </div>
      <EmailComposer
        key={conversationId}
        defaultSubject={loaded.status === 'ready' ? replySubject(loaded.emails) : ''}
        disabled={!canReply}
        disabledReason={disabledReason}
        predefined={predefined}
        onSend={send}
      />
    </div>
  );
}
