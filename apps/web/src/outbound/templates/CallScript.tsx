import { useTranslation } from 'react-i18next';
import type { RenderedScript } from '@centralita/contracts';
import { ScriptText } from './ScriptText';

/** The campaign's script rendered for the contact in the agent's outbound panel; nothing when the campaign has no template. */
export function CallScript({ script, testId }: { script: RenderedScript | null | undefined; testId: string }) {
  const { t } = useTranslation();
  if (!script) return null;
  return (
    <section
      className="outbound-script"
      data-testid={testId}
      aria-label={t('outboundTemplates.desk.script', { name: script.templateName })}
    >
      <h3 className="outbound-script__title">
        <i className="pi pi-file" aria-hidden="true" /> {t('outboundTemplates.desk.script', { name: script.templateName })}
      </h3>
      <ScriptText text={script.text} missing={script.missing} />
      {script.missing.length > 0 && (
        <p className="tpl-missing">{t('outboundTemplates.desk.missing', { keys: script.missing.join(', ') })}</p>
      )}
    </section>
  );
}
