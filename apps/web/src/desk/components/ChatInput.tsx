import { useEffect, useMemo, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { newClientMessageId } from '../desk-api';
import { emoticonsToOffer } from '../logic/emoticons';
import { acceptAttribute, checkFile, formatBytes, type AttachmentRules } from '../logic/attachments';
import { describeError } from '../../api/error-text';
import { isAbort } from '../upload';
import {
  CHAT_INPUT,
  characterCount,
  clampInput,
  inputRows,
  insertAt,
  isSendKey,
  afterSend,
  outgoingMessage,
  outgoingText,
  slashQuery,
  type OutgoingMessage,
} from '../logic/chat-input';

/** What the composer needs to attach files: the channel's rules and the upload itself. */
export interface AttachOptions {
  /** null while the channel's rules are unknown: the attach button is shown disabled. */
  rules: AttachmentRules | null;
  upload: (
    file: File,
    mimeType: string,
    clientMessageId: string,
    onProgress: (fraction: number) => void,
    signal: AbortSignal,
  ) => Promise<unknown>;
}

interface Upload {
  key: string;
  name: string;
  size: number;
  progress: number;
  controller: AbortController;
}

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
  attach,
  disabledReason,
}: {
  /** Sends the text under `clientMessageId`: the same id on every attempt of one composed message. */
  onSend: (text: string, clientMessageId: string) => Promise<unknown> | void;
  onTyping?: (typing: boolean) => void;
  disabled?: boolean;
  predefined?: PredefinedOption[] | null;
  /** The tenant's emoticons; null/empty offers the built-in list. */
  emoticons?: readonly string[] | null;
  testIdPrefix?: string;
  /** Files: an attach button, paste and drop, checked before upload, with progress. */
  attach?: AttachOptions;
  /** Why the composer is disabled (shown in the box instead of the generic text). */
  disabledReason?: string;
}) {
  const { t, i18n } = useTranslation();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [fileError, setFileError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const canAttach = Boolean(attach?.rules) && !disabled;
  const [text, setText] = useState('');
  const [caret, setCaret] = useState(0);
  const [emojiOpen, setEmojiOpen] = useState(false);
  const [sending, setSending] = useState(false);
  // The send in flight and what the box holds now: read by a send that ends after renders its closure missed.
  const sendingNow = useRef(false);
  const textNow = useRef(text);
  textNow.current = text;
  // Enter was pressed while a send was in flight (see afterSend).
  const sendWhenAnswered = useRef(false);
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

  const send = async (): Promise<void> => {
    const composed = textNow.current;
    const outgoing = outgoingText(composed);
    if (outgoing === null || disabled) return;
    if (sendingNow.current) {
      sendWhenAnswered.current = true;
      return;
    }
    sendingNow.current = true;
    setSending(true);
    const message = outgoingMessage(pending.current, outgoing, newClientMessageId);
    pending.current = message;
    let next = { clear: false, sendNext: false };
    try {
      await onSend(message.text, message.clientMessageId);
      pending.current = null;
      next = afterSend(composed, textNow.current, sendWhenAnswered.current);
      if (next.clear) {
        textNow.current = '';
        setText('');
        setCaret(0);
        stopTyping();
      }
    } finally {
      sendingNow.current = false;
      sendWhenAnswered.current = false;
      setSending(false);
      window.requestAnimationFrame(() => area.current?.focus());
    }
    if (next.sendNext) await send();
  };

  // Each file is checked against the channel's rules first; only what passes is uploaded, one
  // message per file, each under its own client id so a retried upload is stored once.
  const addFiles = (files: readonly File[]) => {
    if (!attach?.rules || disabled || files.length === 0) return;
    setFileError(null);
    for (const file of files) {
      const check = checkFile(file, attach.rules);
      if (!check.ok) {
        setFileError(
          check.problem === 'size'
            ? t('desk.attachments.errors.size', { name: file.name, max: formatBytes(check.maxBytes, i18n.language) })
            : t(`desk.attachments.errors.${check.problem}`, { name: file.name }),
        );
        continue;
      }
      const upload: Upload = {
        key: newClientMessageId(),
        name: file.name,
        size: file.size,
        progress: 0,
        controller: new AbortController(),
      };
      setUploads((held) => [...held, upload]);
      const progress = (fraction: number) =>
        setUploads((held) => held.map((entry) => (entry.key === upload.key ? { ...entry, progress: fraction } : entry)));
      Promise.resolve(attach.upload(file, check.mimeType, upload.key, progress, upload.controller.signal))
        .catch((error: unknown) => {
          if (!isAbort(error)) setFileError(t('desk.attachments.errors.failed', { name: file.name, reason: describeError(error, t) }));
        })
        .finally(() => setUploads((held) => held.filter((entry) => entry.key !== upload.key)));
    }
  };
  // Leaving the conversation cancels what is still uploading to it.
  const uploadsRef = useRef(uploads);
  uploadsRef.current = uploads;
  useEffect(() => () => uploadsRef.current.forEach((upload) => upload.controller.abort()), []);

  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = [...event.clipboardData.files];
    if (files.length === 0 || !canAttach) return;
    event.preventDefault();
    addFiles(files);
  };
  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    if (!attach) return;
    event.preventDefault();
    setDragging(false);
    addFiles([...event.dataTransfer.files]);
  };
  const onDragOver = (event: DragEvent<HTMLDivElement>) => {
    if (!canAttach || !event.dataTransfer.types.includes('Files')) return;
    event.preventDefault();
    setDragging(true);
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
    <div
      className={`desk-input${dragging ? ' desk-input--dragging' : ''}${disabled ? ' desk-input--disabled' : ''}`}
      data-testid={`${testIdPrefix}-composer`}
      onDrop={onDrop}
      onDragOver={onDragOver}
      onDragLeave={() => setDragging(false)}
    >
      {dragging ? (
        <div className="desk-input__drop" aria-hidden="true">
          <i className="pi pi-upload" /> {t('desk.attachments.drop')}
        </div>
      ) : null}
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
          placeholder={disabled ? (disabledReason ?? t('desk.chat.inputDisabled')) : t('desk.chat.placeholder')}
          aria-label={t('desk.chat.placeholder')}
          onChange={(event) => change(event.target.value, event.target.selectionStart)}
          onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          onBlur={stopTyping}
          data-testid={`${testIdPrefix}-input`}
        />
        <div className="desk-input__tools">
          {attach ? (
            <>
              <input
                ref={fileInput}
                type="file"
                multiple
                hidden
                accept={attach.rules ? acceptAttribute(attach.rules) : undefined}
                onChange={(event) => {
                  addFiles([...(event.target.files ?? [])]);
                  // The same file chosen again after an error must fire change again.
                  event.target.value = '';
                }}
                data-testid={`${testIdPrefix}-file`}
              />
              <Button
                type="button"
                icon="pi pi-paperclip"
                text
                rounded
                disabled={!canAttach}
                aria-label={t('desk.attachments.attach')}
                tooltip={attach.rules ? t('desk.attachments.attach') : undefined}
                onClick={() => fileInput.current?.click()}
                data-testid={`${testIdPrefix}-attach`}
              />
            </>
          ) : null}
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
      {uploads.length > 0 ? (
        <ul className="desk-uploads" aria-label={t('desk.attachments.uploading')}>
          {uploads.map((upload) => (
            <li key={upload.key} className="desk-upload" data-testid="upload-progress">
              <i className="pi pi-file" aria-hidden="true" />
              <span className="desk-upload__name">{upload.name}</span>
              <span className="desk-upload__size">{formatBytes(upload.size, i18n.language)}</span>
              <progress
                max={100}
                value={Math.round(upload.progress * 100)}
                aria-label={t('desk.attachments.progress', { name: upload.name, percent: Math.round(upload.progress * 100) })}
              />
              <span className="desk-upload__percent">{Math.round(upload.progress * 100)}%</span>
              <Button
                type="button"
                icon="pi pi-times"
                text
                rounded
                size="small"
                aria-label={t('desk.attachments.cancel', { name: upload.name })}
                onClick={() => upload.controller.abort()}
              />
            </li>
          ))}
        </ul>
      ) : null}
      {fileError ? (
        <div className="desk-input__error" role="alert" data-testid={`${testIdPrefix}-file-error`}>
          <i className="pi pi-exclamation-circle" aria-hidden="true" />
          <span>{fileError}</span>
          <button type="button" aria-label={t('desk.common.closePanel')} onClick={() => setFileError(null)}>
            ×
          </button>
        </div>
      ) : null}
      {/* Keys and the count mean nothing while nothing can be typed: the box says why instead. */}
      {disabled ? null : (
        <div className="desk-input__footer">
          <span className="desk-input__hint">{predefined ? t('desk.chat.hintPredefined') : t('desk.chat.hint')}</span>
          <span className={`desk-input__counter ${count.over ? 'desk-input__counter--over' : ''}`} data-testid={`${testIdPrefix}-counter`}>
            {count.used}/{count.max}
          </span>
        </div>
      )}
    </div>
  );
}
