import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { MessageView, NoteView } from '@centralita/contracts';
import { formatTime } from '../../format/format';
import { ListState } from './ListState';
import { MessageAttachments, type AttachmentLoader } from './Attachments';
import { deliveryMark, failureReason, type DeliveryMark } from '../logic/delivery';
import './bot.css';

export type Perspective = 'customer' | 'staff';

type Entry = { kind: 'message'; at: string; message: MessageView } | { kind: 'note'; at: string; note: NoteView };

/**
 * Messages (and, for staff, whisper notes) in order. Every piece of user content is a React text
 * node: never markup (QUALITY.md).
 */
export function MessageList({
  messages,
  notes = [],
  perspective,
  typing,
  loading,
  loadAttachment,
}: {
  messages: MessageView[];
  notes?: NoteView[];
  perspective: Perspective;
  typing?: boolean;
  loading?: boolean;
  /** Reads an attachment's bytes with this side's credentials; without it files show as names only. */
  loadAttachment?: AttachmentLoader;
}) {
  const { t } = useTranslation();
  const end = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const entries: Entry[] = [
    ...messages.map((message) => ({ kind: 'message' as const, at: message.createdAt, message })),
    ...notes.map((note) => ({ kind: 'note' as const, at: note.createdAt, note })),
  ].sort((a, b) => a.at.localeCompare(b.at));

  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [messages.length, notes.length, typing]);

  // Pictures and videos arrive after their message (fetched, then decoded) and grow it: a list the
  // reader keeps at its end stays there, instead of leaving the newest message below the fold.
  // Media `load` events do not bubble; a capturing listener on the list still sees them.
  useEffect(() => {
    const element = list.current;
    if (!element) return;
    let atEnd = true;
    const onScroll = () => {
      atEnd = element.scrollHeight - element.scrollTop - element.clientHeight < 48;
    };
    const onMediaLoaded = () => {
      if (atEnd) end.current?.scrollIntoView?.({ block: 'end' });
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    element.addEventListener('load', onMediaLoaded, true);
    element.addEventListener('loadedmetadata', onMediaLoaded, true);
    return () => {
      element.removeEventListener('scroll', onScroll);
      element.removeEventListener('load', onMediaLoaded, true);
      element.removeEventListener('loadedmetadata', onMediaLoaded, true);
    };
  }, []);

  return (
    <div className="desk-messages" data-testid="message-list" role="log" aria-live="polite" ref={list}>
      <ListState
        loading={loading}
        empty={entries.length === 0}
        emptyText={t('desk.chat.noMessages')}
        emptyTestId="message-list-empty"
        loadingClassName="muted desk-empty"
      >
        {entries.map((entry) =>
          entry.kind === 'note' ? (
            <div key={`n-${entry.note.id}`} className="desk-bubble desk-bubble--note" data-testid="note">
              <span className="desk-bubble__label">{t('desk.chat.whisper')}</span>
              <span className="desk-bubble__text">{entry.note.text}</span>
              <span className="desk-bubble__meta">{formatTime(entry.note.createdAt)}</span>
            </div>
          ) : (
            <Bubble key={entry.message.id} message={entry.message} perspective={perspective} loadAttachment={loadAttachment} />
          ),
        )}
      </ListState>
      {typing ? (
        <div className="desk-typing" data-testid="typing-indicator">
          <span className="desk-typing__dots" aria-hidden="true">
            <span />
            <span />
            <span />
          </span>
          {perspective === 'customer' ? t('desk.chat.agentTyping') : t('desk.chat.customerTyping')}
        </div>
      ) : null}
      <div ref={end} />
    </div>
  );
}

const MARK_ICONS: Record<DeliveryMark, string> = {
  pending: 'pi pi-clock',
  sent: 'pi pi-check',
  delivered: 'pi pi-check',
  read: 'pi pi-check',
  failed: 'pi pi-exclamation-triangle',
};

function Bubble({
  message,
  perspective,
  loadAttachment,
}: {
  message: MessageView;
  perspective: Perspective;
  loadAttachment?: AttachmentLoader;
}) {
  const { t } = useTranslation();
  const mine = perspective === 'customer' ? message.senderKind === 'customer' : message.senderKind !== 'customer';
  const system = message.senderKind === 'system';
  // The line's bot (issue 23): on the staff side among "theirs", named, so the agent tells it from the customer.
  const bot = message.senderKind === 'bot';
  const mark = deliveryMark(message);
  const reason = failureReason(message);
  const markLabel = t(`desk.chat.mark.${mark}`);
  // Two ticks for delivered and read (read coloured), one for sent, as messaging apps show them.
  const ticks = mark === 'delivered' || mark === 'read' ? 2 : 1;
  const attachments = message.attachments ?? [];
  return (
    <div
      className={`desk-bubble ${system ? 'desk-bubble--system' : mine ? 'desk-bubble--mine' : 'desk-bubble--theirs'}${bot ? ' desk-bubble--bot' : ''}${mark === 'failed' && mine ? ' desk-bubble--failed' : ''}`}
      data-testid="message"
      data-sender={message.senderKind}
      data-message-id={message.id}
    >
      {bot ? (
        <span className="desk-bubble__sender" data-testid="message-bot">
          <i className="pi pi-android" aria-hidden="true" /> {t('bot.sender')}
        </span>
      ) : null}
      <MessageAttachments attachments={attachments} load={loadAttachment} />
      {message.text || attachments.length === 0 ? (
        <span className="desk-bubble__text" data-testid="message-text">
          {message.text}
        </span>
      ) : null}
      {mine && !system && mark === 'failed' ? (
        <span className="desk-bubble__failure" role="alert" data-testid="message-failure">
          {reason ? t('desk.chat.failedBecause', { reason }) : t('desk.chat.failedNoReason')}
        </span>
      ) : null}
      <span className="desk-bubble__meta">
        {formatTime(message.createdAt)}
        {mine && !system ? (
          <span
            className={`desk-mark desk-mark--${mark}`}
            data-testid="message-mark"
            data-mark={mark}
            title={reason ? `${markLabel}: ${reason}` : markLabel}
          >
            {Array.from({ length: ticks }, (_, index) => (
              <i key={index} className={MARK_ICONS[mark]} aria-hidden="true" />
            ))}
            <span className="sr-only">{markLabel}</span>
          </span>
        ) : null}
      </span>
    </div>
  );
}
