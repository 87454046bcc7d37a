import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from 'primereact/dialog';
import type { AttachmentView } from '@centralita/contracts';
import { attachmentDisplay, formatBytes } from '../logic/attachments';

/** Reads an attachment's bytes with the caller's credentials (staff bearer or the visitor token). */
export type AttachmentLoader = (attachment: AttachmentView) => Promise<Blob>;

type Loaded = { status: 'loading' } | { status: 'ready'; url: string } | { status: 'error' };

/**
 * The attachment as a blob URL: downloads are authenticated, so an <img src> pointing at the API
 * could not send the bearer. The URL is revoked when the bubble leaves the screen.
 */
function useBlobUrl(load: AttachmentLoader, attachment: AttachmentView): Loaded {
  const [loaded, setLoaded] = useState<Loaded>({ status: 'loading' });
  useEffect(() => {
    let url: string | null = null;
    let live = true;
    setLoaded({ status: 'loading' });
    load(attachment)
      .then((blob) => {
        url = URL.createObjectURL(blob);
        if (live) setLoaded({ status: 'ready', url });
        else URL.revokeObjectURL(url);
      })
      .catch(() => {
        if (live) setLoaded({ status: 'error' });
      });
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
    // One download per attachment id: a re-render with a new loader function must not fetch again.
  }, [attachment.id]);
  return loaded;
}

/** Every file of a message: pictures and media inline, other files as download chips. */
export function MessageAttachments({ attachments, load }: { attachments: AttachmentView[]; load?: AttachmentLoader }) {
  if (attachments.length === 0) return null;
  return (
    <div className="desk-attachments" data-testid="message-attachments">
      {attachments.map((attachment) => {
        const display = attachmentDisplay(attachment);
        if (!load || display === 'file') return <FileChip key={attachment.id} attachment={attachment} load={load} />;
        return <InlineAttachment key={attachment.id} attachment={attachment} display={display} load={load} />;
      })}
    </div>
  );
}

function InlineAttachment({
  attachment,
  display,
  load,
}: {
  attachment: AttachmentView;
  display: 'image' | 'audio' | 'video';
  load: AttachmentLoader;
}) {
  const { t } = useTranslation();
  const loaded = useBlobUrl(load, attachment);
  const [open, setOpen] = useState(false);
  if (loaded.status === 'loading')
    return (
      <span className="desk-attachment desk-attachment--loading" role="status" data-testid="attachment-loading">
        <i className="pi pi-spin pi-spinner" aria-hidden="true" /> {attachment.fileName}
      </span>
    );
  // A file the server no longer gives (or a broken network) is still offered as a download to retry.
  if (loaded.status === 'error') return <FileChip attachment={attachment} load={load} failed />;
  if (display === 'audio')
    return (
      <audio
        className="desk-attachment__audio"
        controls
        preload="metadata"
        src={loaded.url}
        aria-label={attachment.fileName}
        data-testid="attachment-audio"
      />
    );
  if (display === 'video')
    return (
      <video
        className="desk-attachment__video"
        controls
        preload="metadata"
        src={loaded.url}
        aria-label={attachment.fileName}
        data-testid="attachment-video"
      />
    );
  return (
    <>
      <button
        type="button"
        className="desk-attachment__thumb"
        onClick={() => setOpen(true)}
        title={t('desk.attachments.open', { name: attachment.fileName })}
        data-testid="attachment-image"
        data-file-name={attachment.fileName}
      >
        <img src={loaded.url} alt={attachment.fileName} />
      </button>
      <Dialog
        header={attachment.fileName}
        visible={open}
        onHide={() => setOpen(false)}
        style={{ width: 'min(92vw, 960px)' }}
        dismissableMask
        data-testid="attachment-viewer"
      >
        <img className="desk-attachment__full" src={loaded.url} alt={attachment.fileName} />
        <div className="desk-dialog__actions">
          <a className="p-button p-button-text" href={loaded.url} download={attachment.fileName} data-testid="attachment-viewer-download">
            <i className="pi pi-download" aria-hidden="true" />
            &nbsp;{t('desk.attachments.download')}
          </a>
        </div>
      </Dialog>
    </>
  );
}

/** A document (or a failed preview): name, size and a download fetched only when asked for. */
function FileChip({ attachment, load, failed = false }: { attachment: AttachmentView; load?: AttachmentLoader; failed?: boolean }) {
  const { t, i18n } = useTranslation();
  const [state, setState] = useState<'idle' | 'loading' | 'error'>(failed ? 'error' : 'idle');
  const download = async () => {
    if (!load) return;
    setState('loading');
    try {
      const url = URL.createObjectURL(await load(attachment));
      const anchor = document.createElement('a');
      anchor.href = url;
      anchor.download = attachment.fileName;
      document.body.appendChild(anchor);
      anchor.click();
      anchor.remove();
      // The browser has taken the download once click() returns; the next turn frees the memory.
      window.setTimeout(() => URL.revokeObjectURL(url), 0);
      setState('idle');
    } catch {
      setState('error');
    }
  };
  return (
    <button
      type="button"
      className={`desk-attachment desk-attachment__chip${state === 'error' ? ' desk-attachment__chip--error' : ''}`}
      onClick={() => void download()}
      disabled={!load || state === 'loading'}
      title={state === 'error' ? t('desk.attachments.failed') : t('desk.attachments.download')}
      data-testid="attachment-file"
      data-file-name={attachment.fileName}
    >
      <i
        className={state === 'loading' ? 'pi pi-spin pi-spinner' : state === 'error' ? 'pi pi-exclamation-triangle' : 'pi pi-file'}
        aria-hidden="true"
      />
      <span className="desk-attachment__name">{attachment.fileName}</span>
      <span className="desk-attachment__size">{formatBytes(attachment.size, i18n.language)}</span>
      {state === 'error' ? <span className="desk-attachment__error">{t('desk.attachments.failed')}</span> : null}
      <i className="pi pi-download" aria-hidden="true" />
    </button>
  );
}
