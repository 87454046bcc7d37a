import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { newClientMessageId } from '../desk-api';
import { emoticonsToOffer } from '../logic/emoticons';
import {
  CHAT_INPUT,
  characterCount,
  clampInput,
  inputRows,
  insertAt,
  isSendKey,
  outgoingMessage,
  outgoingText,
  slashQuery,
  type OutgoingMessage,
} from '../logic/chat-input';

export interface PredefinedOption {
  id: string;
  shortcut: string;
  message: string;
}

/**
 * The chat input of spec §5: Enter without Shift sends, text trimmed, empty ignored, cleared after
 * sending, up to four rows, 500 characters with a counter. Typing "/" opens the predefined
 * messages (filtered by what follows); the smiley button inserts an emoticon: the tenant's
 * (platform settings) when given, else the built-in list.
 */
export function ChatInput({
  onSend,
  onTyping,
  disabled,
  predefined,
  emoticons,
  testIdPrefix = 'chat',
}: {
  /** Sends the text under `clientMessageId`: the same id on every attempt of one composed message. */
  onSend: (text: string, clientMessageId: string) => Promise<unknown> | void;
  onTyping?: (typing: boolean) => void;
  disabled?: boolean;
  predefined?: PredefinedOption[] | null;
  /** The tenant's emoticons; null/empty offers the built-in list. */
  emoticons?: readonly string[] | null;
  testIdPrefix?: string;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const [caret, setCaret] = useState(0);
  const [emojiOpen, setEmojiOpen] = useState(false);
  const [sending, setSending] = useState(false);
  const [pickerOpen, setPickerOpen] = useState(false);
  const [search, setSearch] = useState('');
  const area = useRef<HTMLTextAreaElement>(null);
  const typingTimer = useRef<number | null>(null);
  const typingOn = useRef(false);
  // The message whose send failed, kept so a resend of the same text carries the same id.
  const pending = useRef<OutgoingMessage | null>(null);

  const query = slashQuery(text, caret);
  const filter = (pickerOpen ? search : (query ?? '')).toLowerCase();
  const matches = useMemo(
    () =>
      (predefined ?? []).filter(
        (option) => !filter || option.shortcut.toLowerCase().includes(filter) || option.message.toLowerCase().includes(filter),
      ),
    [predefined, filter],
  );
  const showPredefined = Boolean(predefined) && (pickerOpen || query !== null);
  const count = characterCount(text);

  const stopTyping = () => {
    if (typingTimer.current) window.clearTimeout(typingTimer.current);
    typingTimer.current = null;
    if (typingOn.current) {
      typingOn.current = false;
      onTyping?.(false);
    }
  };
  // Leaving the conversation while typing tells the other side the typing stopped.
  const stopRef = useRef(stopTyping);
  stopRef.current = stopTyping;
  useEffect(() => () => stopRef.current(), []);

  const change = (value: string, nextCaret: number) => {
    setText(clampInput(value));
    setCaret(nextCaret);
    if (!onTyping) return;
    if (!typingOn.current && value.trim()) {
      typingOn.current = true;
      onTyping(true);
    }
    if (typingTimer.current) window.clearTimeout(typingTimer.current);
    typingTimer.current = window.setTimeout(stopTyping, 3000);
  };

  const insert = (snippet: string) => {
    const position = area.current?.selectionStart ?? text.length;
    const next = insertAt(text, position, snippet);
    change(next.text, next.caret);
    setPickerOpen(false);
    setSearch('');
    window.requestAnimationFrame(() => {
      area.current?.focus();
      area.current?.setSelectionRange(next.caret, next.caret);
    });
  };

  const send = async () => {
    const outgoing = outgoingText(text);
    if (outgoing === null || disabled || sending) return;
    setSending(true);
    const message = outgoingMessage(pending.current, outgoing, newClientMessageId);
    pending.current = message;
    try {
      await onSend(message.text, message.clientMessageId);
      pending.current = null;
      setText('');
      setCaret(0);
      stopTyping();
    } finally {
      setSending(false);
      window.requestAnimationFrame(() => area.current?.focus());
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (showPredefined && query !== null && event.key === 'Enter' && !event.shiftKey && matches.length > 0) {
      event.preventDefault();
      insert(matches[0].message);
      return;
    }
    if (event.key === 'Escape') {
      setPickerOpen(false);
      setEmojiOpen(false);
      return;
    }
    if (isSendKey({ key: event.key, shiftKey: event.shiftKey, isComposing: event.nativeEvent.isComposing })) {
      event.preventDefault();
      void send();
    }
  };

  return (
    <div className="desk-input" data-testid={`${testIdPrefix}-composer`}>
      {showPredefined ? (
        <div className="desk-popover desk-predefined" data-testid="predefined-panel" role="listbox" aria-label={t('desk.chat.predefined')}>
          {pickerOpen ? (
            <input
              className="p-inputtext p-component desk-predefined__search"
              placeholder={t('desk.chat.searchPredefined')}
              value={search}
              autoFocus
              onChange={(event) => setSearch(event.target.value)}
              data-testid="predefined-search"
            />
          ) : null}
          {predefined && predefined.length === 0 ? <p className="muted">{t('desk.chat.noPredefined')}</p> : null}
          {predefined && predefined.length > 0 && matches.length === 0 ? <p className="muted">{t('desk.chat.noMatches')}</p> : null}
          {matches.slice(0, 8).map((option) => (
            <button
              type="button"
              key={option.id}
              className="desk-predefined__item"
              onClick={() => insert(option.message)}
              data-testid="predefined-item"
            >
              <strong>/{option.shortcut}</strong>
              <span>{option.message}</span>
            </button>
          ))}
        </div>
      ) : null}
      {emojiOpen ? (
        <div className="desk-popover desk-emoji" data-testid="emoticon-panel">
          {emoticonsToOffer(emoticons).map((emoji) => (
            <button type="button" key={emoji} onClick={() => insert(emoji)} aria-label={emoji} data-testid="emoticon">
              {emoji}
            </button>
          ))}
        </div>
      ) : null}
      <div className="desk-input__row">
        <textarea
          ref={area}
          className="p-inputtext p-component desk-input__area"
          rows={inputRows(text)}
          maxLength={CHAT_INPUT.maxLength}
          value={text}
          disabled={disabled}
          placeholder={disabled ? t('desk.chat.inputDisabled') : t('desk.chat.placeholder')}
          aria-label={t('desk.chat.placeholder')}
          onChange={(event) => change(event.target.value, event.target.selectionStart)}
          onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
          onKeyDown={onKeyDown}
          onBlur={stopTyping}
          data-testid={`${testIdPrefix}-input`}
        />
        <div className="desk-input__tools">
          <Button
            type="button"
            icon="pi pi-face-smile"
            text
            rounded
            disabled={disabled}
            aria-label={t('desk.chat.emoticons')}
            onClick={() => setEmojiOpen((open) => !open)}
            data-testid="emoticon-toggle"
          />
          {predefined ? (
            <Button
              type="button"
              icon="pi pi-bolt"
              text
              rounded
              disabled={disabled}
              aria-label={t('desk.chat.predefined')}
              onClick={() => setPickerOpen((open) => !open)}
              data-testid="predefined-toggle"
            />
          ) : null}
          <Button
            type="button"
            icon="pi pi-send"
            rounded
            disabled={disabled || sending || outgoingText(text) === null}
            aria-label={t('desk.chat.send')}
            onClick={() => void send()}
            data-testid={`${testIdPrefix}-send`}
          />
        </div>
      </div>
      <div className="desk-input__footer">
        <span className="desk-input__hint">{predefined ? t('desk.chat.hintPredefined') : t('desk.chat.hint')}</span>
        <span className={`desk-input__counter ${count.over ? 'desk-input__counter--over' : ''}`} data-testid={`${testIdPrefix}-counter`}>
          {count.used}/{count.max}
        </span>
      </div>
    </div>
  );
}
