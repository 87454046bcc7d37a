import { useEffect, useState } from 'react';
import { Button } from 'primereact/button';
import { InputText } from 'primereact/inputtext';
import { Message } from 'primereact/message';
import { useTranslation } from 'react-i18next';
import type { ChannelTemplateView } from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import type { MessageCampaignsApi, TemplateTestSendResult } from './message-campaigns-api';

const digits = (value: string) => value.replace(/\D/g, '');

/**
 * Test send of a WhatsApp template (issue 21): an approved template to one of the account's internal
 * numbers (its setting testNumbers), with sample values for each parameter (by name for a NAMED
 * template) and the header's medium; shows the rendered message and Meta's answer (the message id,
 * or its error code and text). A template that is not approved, or a number that is not internal, is
 * refused here with the reason before anything is sent (the API refuses them too).
 */
export function TemplateTestSend({
  api,
  accountId,
  template,
  onClose,
}: {
  api: MessageCampaignsApi;
  accountId: string;
  template: ChannelTemplateView;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [numbers, setNumbers] = useState<string[] | null>(null);
  const [to, setTo] = useState('');
  const [header, setHeader] = useState<string[]>(() => template.headerParameters.map(() => ''));
  const [body, setBody] = useState<string[]>(() => template.bodyParameters.map(() => ''));
  const [mediaLink, setMediaLink] = useState('');
  const [result, setResult] = useState<TemplateTestSendResult | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api.testNumbers(accountId).then(
      (found) => {
        setNumbers(found);
        setTo((current) => current || (found[0] ? `+${found[0]}` : ''));
      },
      (error: unknown) => setFailure(describeError(error, t)),
    );
  }, [api, accountId, t]);

  const approved = template.status === 'APPROVED';
  const media = template.headerFormat && template.headerFormat !== 'TEXT' ? template.headerFormat : null;
  const internal = !to.trim() || numbers === null || numbers.includes(digits(to));
  const label = (name: string) => `{{${name}}}`;
  const complete = [...header, ...body].every((value) => value.trim()) && (!media || mediaLink.trim()) && to.trim();

  const send = async () => {
    setBusy(true);
    setResult(null);
    try {
      setResult(
        await api.testSend(template.id, {
          to: to.trim(),
          header: media ? [] : header,
          body,
          ...(media ? { headerMedia: { link: mediaLink.trim() } } : {}),
        }),
      );
      setFailure(null);
    } catch (error) {
      setFailure(describeError(error, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section
      className="mc-test-send"
      data-testid="template-test-send"
      aria-label={t('messageCampaigns.testSend.title', { name: template.name })}
    >
      <header className="mc-panel__header">
        <h3>{t('messageCampaigns.testSend.title', { name: template.name })}</h3>
        <Button icon="pi pi-times" rounded text aria-label={t('messageCampaigns.testSend.close')} onClick={onClose} />
      </header>
      {!approved && (
        <Message
          severity="warn"
          data-testid="test-send-not-approved"
          text={t('messageCampaigns.testSend.notApproved', {
            status: t(`messageCampaigns.templateStatus.${template.status}`, template.status),
          })}
        />
      )}
      {approved && (
        <div className="mc-editor">
          <div className="mc-editor__form">
            <label>
              {t('messageCampaigns.testSend.to')}
              <InputText data-testid="test-send-to" list="test-send-numbers" value={to} onChange={(event) => setTo(event.target.value)} />
              <datalist id="test-send-numbers">
                {(numbers ?? []).map((number) => (
                  <option key={number} value={`+${number}`} />
                ))}
              </datalist>
            </label>
            {numbers?.length === 0 && <Message severity="info" text={t('messageCampaigns.testSend.noNumbers')} />}
            {!internal && (
              <Message severity="warn" data-testid="test-send-not-internal" text={t('messageCampaigns.testSend.notInternal')} />
            )}
            {media && (
              <label>
                {t('messageCampaigns.testSend.mediaLink', { format: t(`messageCampaigns.headerFormats.${media}`) })}
                <InputText
                  data-testid="test-send-media"
                  value={mediaLink}
                  placeholder="https://…"
                  onChange={(event) => setMediaLink(event.target.value)}
                />
              </label>
            )}
            {!media &&
              template.headerParameters.map((name, index) => (
                <label key={`h-${name}`}>
                  {t('messageCampaigns.testSend.headerValue', { name: label(name) })}
                  <InputText
                    data-testid={`test-send-header-${name}`}
                    value={header[index] ?? ''}
                    onChange={(event) => setHeader(header.map((value, at) => (at === index ? event.target.value : value)))}
                  />
                </label>
              ))}
            {template.bodyParameters.map((name, index) => (
              <label key={`b-${name}`}>
                {t('messageCampaigns.testSend.bodyValue', { name: label(name) })}
                <InputText
                  data-testid={`test-send-body-${name}`}
                  value={body[index] ?? ''}
                  onChange={(event) => setBody(body.map((value, at) => (at === index ? event.target.value : value)))}
                />
              </label>
            ))}
            {failure && <Message severity="error" text={failure} />}
            <Button
              label={t('messageCampaigns.testSend.send')}
              icon="pi pi-send"
              data-testid="test-send-submit"
              disabled={busy || !complete || !internal}
              onClick={() => void send()}
            />
          </div>
          {result && (
            <div className="mc-preview" data-testid="test-send-result">
              <h3>{t('messageCampaigns.testSend.rendered')}</h3>
              <div className="mc-bubble">
                {media ? (
                  <span className="mc-bubble__media">
                    <i className={media === 'IMAGE' ? 'pi pi-image' : media === 'VIDEO' ? 'pi pi-video' : 'pi pi-file-pdf'} /> {mediaLink}
                  </span>
                ) : (
                  result.rendered.header && <strong>{result.rendered.header}</strong>
                )}
                <p>{result.rendered.body}</p>
                {result.rendered.footer && <small className="mc-muted">{result.rendered.footer}</small>}
                {result.rendered.buttons.map((button) => (
                  <span key={button} className="mc-bubble__button">
                    {button}
                  </span>
                ))}
              </div>
              {result.providerMessageId ? (
                <Message
                  severity="success"
                  data-testid="test-send-accepted"
                  text={t('messageCampaigns.testSend.accepted', { id: result.providerMessageId })}
                />
              ) : (
                <Message
                  severity="error"
                  data-testid="test-send-refused"
                  text={t('messageCampaigns.testSend.refused', { code: result.error?.code ?? '', message: result.error?.message ?? '' })}
                />
              )}
            </div>
          )}
        </div>
      )}
    </section>
  );
}
