import { useTranslation } from 'react-i18next';
import { Tag } from 'primereact/tag';
import type { EmailMessageView, MessageView } from '@centralita/contracts';
import { formatDateTime } from '../../../format/format';
import { MessageAttachments, type AttachmentLoader } from '../Attachments';
import { EmailBody } from './EmailBody';
import { formatAddress, formatAddresses, looksForged, verdictTone } from './email-logic';

/** The conversation's emails, oldest first: headers, sender checks, body and files; a reply's delivery state. */
export function EmailThread({
  emails,
  messages,
  loadAttachment,
}: {
  emails: EmailMessageView[];
  messages: MessageView[];
  loadAttachment: AttachmentLoader;
}) {
  const { t } = useTranslation();
  const byId = new Map(messages.map((message) => [message.id, message]));
  return (
    <ol className="email-thread" data-testid="email-thread">
      {emails.map((email) => {
        const message = email.messageId ? byId.get(email.messageId) : undefined;
        return (
          <li
            key={email.messageIdHeader}
            className={`email-card email-card--${email.direction}`}
            data-testid="email-card"
            data-direction={email.direction}
          >
            <header className="email-card__head">
              <h3 className="email-card__subject" data-testid="email-subject">
                {email.subject || t('email.noSubject')}
              </h3>
              <time className="muted">{formatDateTime(email.at)}</time>
            </header>
            <dl className="email-card__addresses">
              <dt>{t('email.from')}</dt>
              <dd data-testid="email-from">{formatAddress(email.from)}</dd>
              <dt>{t('email.to')}</dt>
              <dd data-testid="email-to">{formatAddresses(email.to)}</dd>
              {email.cc.length > 0 && (
                <>
                  <dt>{t('email.cc')}</dt>
                  <dd data-testid="email-cc">{formatAddresses(email.cc)}</dd>
                </>
              )}
              {email.bcc.length > 0 && (
                <>
                  <dt>{t('email.bcc')}</dt>
                  <dd>{formatAddresses(email.bcc)}</dd>
                </>
              )}
            </dl>
            {email.auth && <AuthBadges auth={email.auth} />}
            <EmailBody html={email.html} text={email.text} quoted={email.quoted} />
            {email.attachments.length > 0 && <MessageAttachments attachments={email.attachments} load={loadAttachment} />}
            {email.direction === 'out' && <Delivery email={email} message={message} />}
          </li>
        );
      })}
    </ol>
  );
}

function AuthBadges({ auth }: { auth: NonNullable<EmailMessageView['auth']> }) {
  const { t } = useTranslation();
  return (
    <div className="email-card__auth" data-testid="email-auth">
      {(['spf', 'dkim', 'dmarc'] as const).map((method) => (
        <Tag
          key={method}
          severity={verdictTone(auth[method])}
          value={`${method.toUpperCase()}: ${t(`email.verdict.${auth[method] ?? 'unknown'}`)}`}
          data-testid={`email-auth-${method}`}
          data-verdict={auth[method] ?? 'unknown'}
        />
      ))}
      {looksForged(auth) && (
        <span className="email-card__forged" role="alert" data-testid="email-forged">
          <i className="pi pi-exclamation-triangle" aria-hidden /> {t('email.forged')}
        </span>
      )}
    </div>
  );
}

function Delivery({ email, message }: { email: EmailMessageView; message: MessageView | undefined }) {
  const { t } = useTranslation();
  const status = message?.deliveryStatus ?? 'pending';
  const text =
    status === 'failed'
      ? t('email.delivery.failed', { reason: message?.deliveryError ?? '' })
      : status === 'pending'
        ? t('email.delivery.pending')
        : email.confirmed === false
          ? t('email.delivery.unconfirmed')
          : t('email.delivery.sent');
  return (
    <p className={`email-card__delivery email-card__delivery--${status}`} data-testid="email-delivery" data-status={status}>
      {text}
    </p>
  );
}
