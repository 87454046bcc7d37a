import { useRef, useState, type ChangeEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { Dropdown } from 'primereact/dropdown';
import { Editor } from 'primereact/editor';
import { InputText } from 'primereact/inputtext';
import type { EmailReplyInput } from '@centralita/contracts';
import { formatBytes } from '../../logic/attachments';
import type { PredefinedOption } from '../ChatInput';
import { isEmptyHtml, parseAddressList, textToHtml } from './email-logic';

/** Largest file the composer takes (the API checks again: content, size, the channel's kinds). */
const FILE_MAX_BYTES = 20 * 1024 * 1024;

/**
 * The email reply: subject, cc and bcc, the rich-text editor (PrimeReact Editor, quill 2),
 * predefined messages inserted at the end, files. The customer is always the recipient; the API
 * stores the reply with its threading headers and the worker sends it.
 */
export function EmailComposer({
  defaultSubject,
  disabled,
  disabledReason,
  predefined,
  onSend,
}: {
  defaultSubject: string;
  disabled: boolean;
  disabledReason?: string;
  predefined: PredefinedOption[] | null;
  onSend(input: EmailReplyInput, files: File[]): Promise<void>;
}) {
  const { t } = useTranslation();
  const [subject, setSubject] = useState<string | null>(null);
  const [html, setHtml] = useState('');
  const [cc, setCc] = useState('');
  const [bcc, setBcc] = useState('');
  const [showCopies, setShowCopies] = useState(false);
  const [files, setFiles] = useState<File[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  // One id per composed reply, kept across a retry, so a resend after a lost answer is stored once.
  const clientMessageId = useRef(crypto.randomUUID());
  const fileInput = useRef<HTMLInputElement>(null);

  const addFiles = (event: ChangeEvent<HTMLInputElement>) => {
    const picked = Array.from(event.target.files ?? []);
    event.target.value = '';
    const tooLarge = picked.find((file) => file.size > FILE_MAX_BYTES);
    if (tooLarge) setProblem(t('email.composer.fileTooLarge', { name: tooLarge.name, size: formatBytes(FILE_MAX_BYTES) }));
    setFiles((held) => [...held, ...picked.filter((file) => file.size <= FILE_MAX_BYTES)].slice(0, 10));
  };

  const send = async () => {
    setProblem(null);
    const copies = parseAddressList(cc);
    const blind = parseAddressList(bcc);
    const invalid = copies.invalid ?? blind.invalid;
    if (invalid) return setProblem(t('email.composer.invalidAddress', { address: invalid }));
    if (isEmptyHtml(html) && files.length === 0) return setProblem(t('email.composer.empty'));
    setSending(true);
    try {
      await onSend(
        {
          html,
          cc: copies.addresses,
          bcc: blind.addresses,
          subject: (subject ?? defaultSubject).trim() || undefined,
          clientMessageId: clientMessageId.current,
        },
        files,
      );
      setHtml('');
      setFiles([]);
      setCc('');
      setBcc('');
      setSubject(null);
      clientMessageId.current = crypto.randomUUID();
    } catch {
      // The caller told the agent why; the draft stays for another try (same client id).
    } finally {
      setSending(false);
    }
  };

  return (
    <form
      className="email-composer"
      data-testid="email-composer"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      {disabled && disabledReason && (
        <p className="muted" data-testid="email-composer-disabled">
          {disabledReason}
        </p>
      )}
      <div className="email-composer__row">
        <label htmlFor="email-subject">{t('email.composer.subject')}</label>
        <InputText
          id="email-subject"
          value={subject ?? defaultSubject}
          onChange={(event) => setSubject(event.target.value)}
          maxLength={998}
          disabled={disabled}
          data-testid="email-composer-subject"
        />
        <Button
          type="button"
          text
          size="small"
          label={t('email.composer.copies')}
          onClick={() => setShowCopies((shown) => !shown)}
          disabled={disabled}
          data-testid="email-composer-copies"
        />
      </div>
      {showCopies && (
        <>
          <div className="email-composer__row">
            <label htmlFor="email-cc">{t('email.cc')}</label>
            <InputText
              id="email-cc"
              value={cc}
              onChange={(event) => setCc(event.target.value)}
              placeholder={t('email.composer.addressesPlaceholder')}
              disabled={disabled}
              data-testid="email-composer-cc"
            />
          </div>
          <div className="email-composer__row">
            <label htmlFor="email-bcc">{t('email.bcc')}</label>
            <InputText
              id="email-bcc"
              value={bcc}
              onChange={(event) => setBcc(event.target.value)}
              placeholder={t('email.composer.addressesPlaceholder')}
              disabled={disabled}
              data-testid="email-composer-bcc"
            />
          </div>
        </>
      )}
      <Editor
        value={html}
        onTextChange={(event) => setHtml(event.htmlValue ?? '')}
        readOnly={disabled}
        placeholder={t('email.composer.placeholder')}
        style={{ height: '120px' }}
        data-testid="email-composer-editor"
      />
      {files.length > 0 && (
        <ul className="email-composer__files" data-testid="email-composer-files">
          {files.map((file, index) => (
            <li key={`${file.name}-${index}`}>
              <i className="pi pi-paperclip" aria-hidden /> {file.name} <span className="muted">({formatBytes(file.size)})</span>
              <Button
                type="button"
                icon="pi pi-times"
                text
                rounded
                size="small"
                aria-label={t('email.composer.removeFile', { name: file.name })}
                onClick={() => setFiles((held) => held.filter((_, at) => at !== index))}
              />
            </li>
          ))}
        </ul>
      )}
      {problem && (
        <p className="field-error" role="alert" data-testid="email-composer-problem">
          {problem}
        </p>
      )}
      <div className="email-composer__actions">
        <input ref={fileInput} type="file" multiple hidden onChange={addFiles} data-testid="email-composer-file-input" />
        <Button
          type="button"
          icon="pi pi-paperclip"
          label={t('email.composer.attach')}
          outlined
          size="small"
          disabled={disabled}
          onClick={() => fileInput.current?.click()}
          data-testid="email-composer-attach"
        />
        <Dropdown
          options={predefined ?? []}
          optionLabel="shortcut"
          placeholder={predefined === null ? t('common.loading') : t('email.composer.predefined')}
          disabled={disabled || !predefined?.length}
          onChange={(event) => {
            const chosen = (predefined ?? []).find((option) => option.id === (event.value as PredefinedOption | undefined)?.id);
            if (chosen) setHtml((current) => `${isEmptyHtml(current) ? '' : current}${textToHtml(chosen.message)}`);
          }}
          itemTemplate={(option: PredefinedOption) => (
            <span>
              <strong>{option.shortcut}</strong> — {option.message.slice(0, 60)}
            </span>
          )}
          data-testid="email-composer-predefined"
        />
        <Button
          type="submit"
          icon="pi pi-send"
          label={sending ? t('email.composer.sending') : t('email.composer.send')}
          loading={sending}
          disabled={disabled || sending}
          data-testid="email-composer-send"
        />
      </div>
    </form>
  );
}
