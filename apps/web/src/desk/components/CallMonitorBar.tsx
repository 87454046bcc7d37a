import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { VOICE_MONITOR_MODES, type VoiceMonitorMode, type VoiceMonitorStatus } from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useToast } from '../../toast/ToastProvider';
import type { DeskApi } from '../desk-api';

const ICONS: Record<VoiceMonitorMode, string> = { listen: 'pi pi-headphones', whisper: 'pi pi-comment', barge: 'pi pi-users' };

/**
 * Live supervision of a phone conversation: listen, whisper (only the agent hears the supervisor) and barge (three-way)
 * with the supervisor's own softphone, which rings and joins the call when answered. Every button says why it is
 * disabled: the call is not connected to an agent, the supervisor has no softphone, or someone else is monitoring.
 * It re-reads the call when `changed` moves (the supervisor socket's voiceCall.updated, or a resync), not on a timer.
 */
export function CallMonitorBar({
  api,
  conversationId,
  userId,
  changed,
}: {
  api: DeskApi;
  conversationId: string;
  userId: string | undefined;
  changed: number;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const [status, setStatus] = useState<VoiceMonitorStatus | null>(null);
  const [busy, setBusy] = useState(false);

  const refresh = useCallback(async () => {
    try {
      setStatus(await api.monitorStatus(conversationId));
    } catch {
      setStatus(null); // no call behind the conversation (yet): nothing to monitor
    }
  }, [api, conversationId]);

  useEffect(() => setStatus(null), [conversationId]);
  useEffect(() => {
    void refresh();
  }, [refresh, changed]);

  if (!status) return null;
  const mine = status.supervisorId !== null && status.supervisorId === userId;
  const someoneElse = status.supervisorId !== null && !mine;
  const blocked = !status.connected
    ? t('desk.callMonitor.notConnected')
    : !status.softphone
      ? t('desk.callMonitor.noSoftphone')
      : someoneElse
        ? t('desk.callMonitor.otherMonitoring')
        : null;
  const said = blocked ?? (mine && status.state === 'ringing' ? t('desk.callMonitor.ringing') : null);
  const act = async (action: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await action();
    } catch (error) {
      toast.error(t('desk.callMonitor.failed'), describeError(error, t));
    } finally {
      setBusy(false);
      await refresh();
    }
  };
  const choose = (mode: VoiceMonitorMode) =>
    act(() => (mine ? api.switchMonitor(conversationId, mode) : api.startMonitor(conversationId, mode)));

  return (
    <div
      className="desk-call-monitor"
      data-testid="call-monitor"
      data-state={mine ? (status.state ?? 'none') : someoneElse ? 'other' : 'none'}
      data-mode={status.mode ?? ''}
    >
      <span className="desk-call-monitor__label">{t('desk.callMonitor.title')}</span>
      {VOICE_MONITOR_MODES.map((mode) => {
        const current = mine && status.mode === mode;
        return (
          <Button
            key={mode}
            type="button"
            size="small"
            icon={ICONS[mode]}
            outlined={!current}
            label={t(`desk.callMonitor.${mode}`)}
            tooltip={blocked ?? t(`desk.callMonitor.${mode}Hint`)}
            tooltipOptions={{ position: 'top', showOnDisabled: true }}
            aria-pressed={current}
            // The current mode stays solid (pressed), not faded as a disabled button would be; pressing it does nothing.
            disabled={busy || blocked !== null || (mine && status.state !== 'active')}
            onClick={() => (current ? undefined : void choose(mode))}
            data-testid={`call-monitor-${mode}`}
          />
        );
      })}
      {mine ? (
        <Button
          type="button"
          size="small"
          severity="danger"
          text
          icon="pi pi-stop-circle"
          label={t('desk.callMonitor.stop')}
          disabled={busy}
          onClick={() => void act(() => api.stopMonitor(conversationId))}
          data-testid="call-monitor-stop"
        />
      ) : null}
      {said ? (
        <span className="muted desk-call-monitor__reason" data-testid="call-monitor-reason">
          {said}
        </span>
      ) : mine && status.mode ? (
        <span className="desk-call-monitor__reason" data-testid="call-monitor-reason">
          {t('desk.callMonitor.active', { mode: t(`desk.callMonitor.${status.mode}`) })}
        </span>
      ) : null}
    </div>
  );
}
