import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { emailFrame } from './email-frame';
import { EMAIL_FRAME_SANDBOX } from './email-logic';

/**
 * One email's body. HTML goes through DOMPurify into an iframe with `sandbox` (no allow-scripts,
 * no allow-same-origin) and a CSP of its own: scripts never run, and nothing is fetched until the
 * agent presses "Show images". Plain text is shown as text. Quoted earlier mail is folded.
 */
export function EmailBody({ html, text, quoted }: { html: string | null; text: string; quoted: string }) {
  const { t } = useTranslation();
  const [showImages, setShowImages] = useState(false);
  const [showQuoted, setShowQuoted] = useState(false);
  const frame = useMemo(() => (html ? emailFrame(html, { showImages, showQuoted }) : null), [html, showImages, showQuoted]);
  const hasQuoted = frame ? frame.quoted : quoted.trim() !== '';
  return (
    <div className="email-body">
      {frame ? (
        <>
          {frame.remoteImages && !showImages && (
            <div className="email-body__notice" data-testid="email-images-blocked">
              <i className="pi pi-eye-slash" aria-hidden />
              <span>{t('email.imagesBlocked')}</span>
              <Button
                type="button"
                label={t('email.showImages')}
                text
                size="small"
                onClick={() => setShowImages(true)}
                data-testid="email-show-images"
              />
            </div>
          )}
          <iframe
            className="email-body__frame"
            title={t('email.frameTitle')}
            sandbox={EMAIL_FRAME_SANDBOX}
            srcDoc={frame.srcdoc}
            referrerPolicy="no-referrer"
            data-testid="email-frame"
          />
        </>
      ) : (
        <div className="email-body__text" data-testid="email-text">
          {text}
          {showQuoted && quoted && <div className="email-body__quoted">{quoted}</div>}
        </div>
      )}
      {hasQuoted && (
        <Button
          type="button"
          text
          size="small"
          icon={showQuoted ? 'pi pi-angle-up' : 'pi pi-ellipsis-h'}
          label={showQuoted ? t('email.hideQuoted') : t('email.showQuoted')}
          onClick={() => setShowQuoted((shown) => !shown)}
          data-testid="email-toggle-quoted"
        />
      )}
    </div>
  );
}
