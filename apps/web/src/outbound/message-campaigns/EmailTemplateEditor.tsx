import { useState } from 'react';
import { Button } from 'primereact/button';
import { InputText } from 'primereact/inputtext';
import { InputTextarea } from 'primereact/inputtextarea';
import { Message } from 'primereact/message';
import { useTranslation } from 'react-i18next';
import {
  emailComponents,
  emailPlaceholders,
  emailTemplateProblem,
  renderEmailTemplate,
  type EmailTemplateInput,
} from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import type { MessageCampaignsApi } from './message-campaigns-api';

interface EmailDraft {
  name: string;
  language: string;
  subject: string;
  html: string;
  text: string;
  examples: string[];
}

const EMPTY: EmailDraft = { name: '', language: 'es', subject: '', html: '', text: '', examples: [] };

/**
 * The email kind of the template editor (issue 21, email campaigns): subject and HTML and/or text
 * body with the renderer's {{1}}, {{2}}… parameters, one example each, the same checks as the API
 * as you type and a live preview through the shared renderer (the HTML in a sandboxed frame). No
 * provider reviews an email template: it is usable once saved.
 */
export function EmailTemplateEditor({ api, accountId, onSaved }: { api: MessageCampaignsApi; accountId: string; onSaved: () => void }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<EmailDraft>(EMPTY);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const count = emailPlaceholders(draft).count;
  const input: EmailTemplateInput = {
    accountId,
    name: draft.name.trim(),
    language: draft.language.trim(),
    subject: draft.subject,
    html: draft.html || null,
    text: draft.text || null,
    examples: draft.examples.slice(0, count),
  };
  const problem = draft.name || draft.subject || draft.html || draft.text ? emailTemplateProblem(input) : null;
  const preview = renderEmailTemplate(emailComponents({ ...input, subject: input.subject || ' ' }));

  const save = async () => {
    setBusy(true);
    try {
      await api.createEmailTemplate(input);
      setDraft(EMPTY);
      setFailure(null);
      onSaved();
    } catch (error) {
      setFailure(describeError(error, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="mc-editor" data-testid="email-template-editor">
      <div className="mc-editor__form">
        <h3>{t('emailCampaigns.template.new')}</h3>
        <p className="mc-muted">{t('emailCampaigns.template.noReview')}</p>
        <label>
          {t('messageCampaigns.templates.name')}
          <InputText
            data-testid="email-tpl-name"
            value={draft.name}
            onChange={(event) => setDraft({ ...draft, name: event.target.value })}
            placeholder="novedades_mayo"
          />
        </label>
        <label>
          {t('messageCampaigns.templates.language')}
          <InputText value={draft.language} onChange={(event) => setDraft({ ...draft, language: event.target.value })} />
        </label>
        <label>
          {t('emailCampaigns.template.subject')}
          <InputText
            data-testid="email-tpl-subject"
            value={draft.subject}
            onChange={(event) => setDraft({ ...draft, subject: event.target.value })}
          />
        </label>
        <label>
          {t('emailCampaigns.template.html')}
          <InputTextarea
            data-testid="email-tpl-html"
            rows={6}
            value={draft.html}
            onChange={(event) => setDraft({ ...draft, html: event.target.value })}
          />
        </label>
        <label>
          {t('emailCampaigns.template.text')}
          <InputTextarea rows={3} value={draft.text} onChange={(event) => setDraft({ ...draft, text: event.target.value })} />
        </label>
        <small className="mc-muted">{t('emailCampaigns.template.parametersHelp')}</small>
        {Array.from({ length: count }, (_, index) => (
          <label key={index}>
            {t('messageCampaigns.templates.example', { n: index + 1 })}
            <InputText
              data-testid={`email-tpl-example-${index + 1}`}
              value={draft.examples[index] ?? ''}
              onChange={(event) => {
                const examples = [...draft.examples];
                examples[index] = event.target.value;
                setDraft({ ...draft, examples });
              }}
            />
          </label>
        ))}
        {problem && <Message severity="warn" text={problem} />}
        {failure && <Message severity="error" text={failure} />}
        <Button
          label={t('emailCampaigns.template.save')}
          icon="pi pi-save"
          data-testid="email-tpl-save"
          disabled={!!problem || !draft.name || busy}
          onClick={() => void save()}
        />
      </div>
      <div
        className="mc-preview mc-preview--email"
        data-testid="email-template-preview"
        aria-label={t('messageCampaigns.templates.preview')}
      >
        <h3>{t('messageCampaigns.templates.preview')}</h3>
        <div className="mc-bubble">
          <strong data-testid="email-preview-subject">{preview.subject || t('emailCampaigns.template.subject')}</strong>
          {preview.html ? (
            // The template's HTML with sample values, in a frame that runs no script and reaches nothing.
            <iframe className="mc-email-frame" title={t('messageCampaigns.templates.preview')} sandbox="" srcDoc={preview.html} />
          ) : (
            <p className="mc-email-text" data-testid="email-preview-text">
              {preview.text || t('messageCampaigns.templates.previewEmpty')}
            </p>
          )}
        </div>
      </div>
    </div>
  );
}
