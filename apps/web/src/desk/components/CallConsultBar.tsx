import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import type { VoiceConsultView } from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useToast } from '../../toast/ToastProvider';
import type { DeskApi } from '../desk-api';

/** How often the bar re-reads the consultation: the colleague's softphone answering is not pushed. */
const REFRESH_MS = 2000;

/**
 * Attended transfer of the agent's own phone call: "Consult transfer" opens the target picker (`onPick`, the desk's
 * transfer dialog), the caller goes on hold music and the colleague's softphone rings; once they answer the agent
 * completes the transfer (the caller goes to the colleague, the agent leaves the call) or cancels (back to the caller).
 * Hints are plain titles and text, not PrimeReact tooltips: the buttons come and go with the state, and a tooltip shown
 * on a button being unmounted broke the page (React's removeChild of a node the tooltip had moved).
 */
export function CallConsultBar({ api, conversationId, onPick }: { api: DeskApi; conversationId: string; onPick: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [consult, setConsult] = useState<VoiceConsultView | null>(null);
  const [busy, setBusy] = useState(false);

  const refresh = useCallback(async () => {
    try {
      setConsult(await api.consultStatus(conversationId));
    } catch {
      setConsult(null); // no call behind the conversation: nothing to consult
    }
  }, [api, conversationId]);

  useEffect(() => {
    setConsult(null);
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  if (!consult) return null;
  const name = consult.agentName ?? '';
  const act = async (action: () => Promise<VoiceConsultView>, done?: string) => {
    setBusy(true);
    try {
      setConsult(await action());
      if (done) toast.success(done);
    } catch (error) {
      toast.error(t('desk.callConsult.failed'), describeError(error, t));
    } finally {
      setBusy(false);
      await refresh();
    }
  };

  return (
    <div className="desk-call-monitor" data-testid="call-consult" data-state={consult.state ?? 'none'}>
      {consult.state === null ? (
        <Button
          type="button"
          size="small"
          outlined
          icon="pi pi-users"
          label={t('desk.callConsult.consult')}
          title={t('desk.callConsult.consultHint')}
          disabled={busy}
          onClick={onPick}
          data-testid="call-consult-start"
        />
      ) : (
        <>
          <span className="desk-call-monitor__reason" data-testid="call-consult-status">
            {t(`desk.callConsult.${consult.state}`, { name })}
          </span>
          <Button
            type="button"
            size="small"
            icon={busy && consult.state === 'active' ? 'pi pi-spin pi-spinner' : 'pi pi-arrow-right-arrow-left'}
            label={t('desk.callConsult.complete')}
            title={consult.state === 'active' ? t('desk.callConsult.completeHint', { name }) : undefined}
            disabled={busy || consult.state !== 'active'}
            onClick={() => void act(() => api.completeConsult(conversationId), t('desk.callConsult.completed', { name }))}
            data-testid="call-consult-complete"
          />
          <Button
            type="button"
            size="small"
            severity="danger"
            text
            icon="pi pi-times"
            label={t('desk.callConsult.cancel')}
            disabled={busy || (consult.state !== 'ringing' && consult.state !== 'active')}
            onClick={() => void act(() => api.cancelConsult(conversationId))}
            data-testid="call-consult-cancel"
          />
          {consult.state === 'ringing' ? (
            <span className="muted desk-call-monitor__reason" data-testid="call-consult-hint">
              {t('desk.callConsult.completeWhenAnswered')}
            </span>
          ) : null}
        </>
      )}
    </div>
  );
}
