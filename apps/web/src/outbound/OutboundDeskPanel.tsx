import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Button } from 'primereact/button';
import { InputText } from 'primereact/inputtext';
import type { Socket } from 'socket.io-client';
import { useTranslation } from 'react-i18next';
import {
  OUTBOUND_DISPOSITIONS,
  OUTBOUND_SOCKET_EVENTS,
  type AgentView,
  type OutboundCallback,
  type OutboundCallView,
  type OutboundPreviewLineView,
} from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { useServices } from '../app/ServicesContext';
import { connectStaff } from '../desk/realtime/socket-client';
import { isApiError } from '../api/api-error';
import { formatDateTime, formatTime } from '../format/format';
import { createOutboundApi, isOverdue, type AgentCall, type PreviewRecord } from './outbound-api';
import { CallScript } from './templates/CallScript';
import { deskCallAfterPush, previewAfterDial, previewAfterLinePush } from './desk-call';
import './outbound.css';

/** Presence states from which the agent may start waiting for outbound calls. */
const CAN_WAIT = new Set(['available', 'afterCallWork']);

/**
 * The agent desk's outbound panel: 'waiting for outbound call', the screen pop with the contact's
 * data when the dialer connects a call, hang up (HangUp), and the disposition form (UpdDISPO).
 * Renders what the API pushes (`agent.updated`, `outbound.call`) and resyncs over REST.
 */
export function OutboundDeskPanel() {
  const { t } = useTranslation();
  const { client, session } = useServices();
  const api = useMemo(() => createOutboundApi(client), [client]);
  const [presence, setPresence] = useState<AgentView | null>(null);
  const [call, setCall] = useState<AgentCall | null>(null);
  const [disposition, setDisposition] = useState<string>('');
  const [callbackAt, setCallbackAt] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [preview, setPreview] = useState<PreviewRecord | null>(null);
  const [myCallbacks, setMyCallbacks] = useState<OutboundCallback[] | null>(null);
  const presenceVersion = useRef(0);

  const acceptPresence = useCallback((view: AgentView) => {
    if (view.version < presenceVersion.current) return;
    presenceVersion.current = view.version;
    setPresence(view);
  }, []);

  const loadCallbacks = useCallback(async () => {
    const pending = await api.callbacks({ mine: true, status: 'pending' }).catch(() => null);
    if (pending) setMyCallbacks(pending);
  }, [api]);

  const resync = useCallback(async () => {
    const [view, current] = await Promise.all([
      client.get<AgentView>('/api/agent/presence').catch(() => null),
      api.currentCall().catch(() => null),
      loadCallbacks(),
    ]);
    if (view) acceptPresence(view);
    setCall(current);
  }, [client, api, acceptPresence, loadCallbacks]);

  useEffect(() => {
    void resync();
    const connection = connectStaff(() => session.getAccessToken(), { onResync: () => void resync() });
    const socket = connection.socket as unknown as Socket;
    socket.on('agent.updated', (view: AgentView) => {
      if (view.agentId === session.getUserId()) acceptPresence(view);
    });
    socket.on(OUTBOUND_SOCKET_EVENTS.call, (view: OutboundCallView) => {
      setCall((held) => {
        const next = deskCallAfterPush(held, view, session.getUserId());
        if (next.isNew) {
          setPreview(null);
          // A new call: fetch the full screen pop (campaign name).
          void api.currentCall().then((current) => current && setCall(current));
        }
        return next.call;
      });
    });
    socket.on(OUTBOUND_SOCKET_EVENTS.preview, (view: OutboundPreviewLineView) => setPreview((held) => previewAfterLinePush(held, view)));
    return () => connection.close();
  }, [session, api, resync, acceptPresence]);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setFailure(null);
    try {
      await work();
    } catch (error) {
      setFailure(describeError(error, t));
    } finally {
      setBusy(false);
    }
  };

  const askPreview = () =>
    run(async () => {
      try {
        setPreview(await api.previewNext());
      } catch (error) {
        if (isApiError(error) && error.code === 'not_found') setFailure(t('outbound.desk.noPreview'));
        else throw error;
      }
    });

  const status = presence?.status ?? 'loggedOut';
  const active = call && (call.status === 'connected' || call.status === 'wrapUp') ? call : null;

  return (
    <div className="desk-card outbound-desk" data-testid="outbound-panel" aria-label={t('outbound.desk.title')}>
      <div className="outbound-desk__bar">
        <h2 className="desk-card__title">
          <i className="pi pi-phone" aria-hidden="true" /> {t('outbound.desk.title')}
        </h2>
        {status === 'waitingOutboundCall' ? (
          <>
            <span className="outbound-desk__waiting" data-testid="outbound-waiting" role="status">
              <i className="pi pi-spin pi-spinner" aria-hidden="true" /> {t('outbound.desk.waiting')}
            </span>
            <Button
              label={t('outbound.desk.stopWaiting')}
              size="small"
              outlined
              disabled={busy}
              data-testid="outbound-stop-waiting"
              onClick={() => void run(async () => acceptPresence(await client.post<AgentView>('/api/agent/presence/available')))}
            />
          </>
        ) : (
          <Button
            label={t('outbound.desk.wait')}
            icon="pi pi-phone"
            size="small"
            disabled={busy || !CAN_WAIT.has(status) || !!active}
            data-testid="outbound-wait"
            onClick={() => void run(async () => acceptPresence(await api.waiting()))}
          />
        )}
      </div>
      {!active && status !== 'loggedOut' && (
        <div className="outbound-preview" data-testid="outbound-preview">
          {preview ? (
            <>
              <dl className="desk-facts">
                <dt>{t('outbound.fields.contact')}</dt>
                <dd data-testid="preview-contact">{preview.name ?? t('format.notAvailable')}</dd>
                <dt>{t('outbound.fields.phone')}</dt>
                <dd data-testid="preview-phone">{preview.phone}</dd>
                <dt>{t('outbound.fields.campaign')}</dt>
                <dd>{preview.campaignName}</dd>
                <dt>{t('outbound.fields.attempt')}</dt>
                <dd>{preview.attempt}</dd>
              </dl>
              <CallScript script={preview.script} testId="preview-script" />
              {preview.dialRequested && preview.waitingForLineSince ? (
                <span className="outbound-desk__waiting" role="status" data-testid="preview-waiting-line">
                  <i className="pi pi-clock" aria-hidden="true" />{' '}
                  {t('outbound.desk.waitingForLine', {
                    name: preview.name ?? preview.phone,
                    time: formatTime(preview.waitingForLineSince, t),
                  })}
                </span>
              ) : preview.dialRequested ? (
                <span className="outbound-desk__waiting" role="status" data-testid="preview-dialing">
                  <i className="pi pi-spin pi-spinner" aria-hidden="true" />{' '}
                  {t('outbound.desk.dialing', { name: preview.name ?? preview.phone })}
                </span>
              ) : (
                <div className="outbound-preview__actions">
                  <Button
                    label={t('outbound.desk.dial')}
                    icon="pi pi-phone"
                    size="small"
                    severity="success"
                    disabled={busy}
                    data-testid="preview-dial"
                    onClick={() =>
                      void run(async () => {
                        const answered = await api.previewDial(preview.callId);
                        setPreview((held) => previewAfterDial(held, answered));
                      })
                    }
                  />
                  <Button
                    label={t('outbound.desk.skip')}
                    size="small"
                    outlined
                    disabled={busy}
                    data-testid="preview-skip"
                    onClick={() =>
                      void run(async () => {
                        await api.previewSkip(preview.callId);
                        setPreview(null);
                      })
                    }
                  />
                </div>
              )}
            </>
          ) : (
            <Button
              label={t('outbound.desk.previewNext')}
              icon="pi pi-id-card"
              size="small"
              text
              disabled={busy}
              data-testid="preview-next"
              onClick={() => void askPreview()}
            />
          )}
        </div>
      )}
      {failure && (
        <p className="form-error" role="alert">
          {failure}
        </p>
      )}
      {active && (
        <div className="outbound-pop" data-testid="outbound-screen-pop" data-call-status={active.status}>
          <dl className="desk-facts">
            <dt>{t('outbound.fields.contact')}</dt>
            <dd data-testid="pop-contact">{active.contactName ?? t('format.notAvailable')}</dd>
            <dt>{t('outbound.fields.phone')}</dt>
            <dd data-testid="pop-phone">{active.phone}</dd>
            <dt>{t('outbound.fields.campaign')}</dt>
            <dd>{active.campaignName || t('format.notAvailable')}</dd>
            <dt>{t('outbound.fields.attempt')}</dt>
            <dd>{active.attempt}</dd>
            <dt>{t('outbound.fields.status')}</dt>
            <dd data-testid="pop-status">{t(`outbound.callStatus.${active.status}`, { defaultValue: active.status })}</dd>
          </dl>
          <CallScript script={active.script} testId="pop-script" />
          {active.status === 'connected' ? (
            <Button
              label={t('outbound.desk.hangUp')}
              icon="pi pi-phone"
              severity="danger"
              size="small"
              disabled={busy}
              data-testid="outbound-hangup"
              onClick={() => void run(async () => setCall({ ...active, ...(await api.hangUp(active.id)) }))}
            />
          ) : (
            <form
              className="outbound-dispo"
              data-testid="outbound-disposition-form"
              onSubmit={(event) => {
                event.preventDefault();
                if (!disposition) return;
                void run(async () => {
                  const when = disposition === 'callback' && callbackAt ? new Date(callbackAt).toISOString() : undefined;
                  const updated = await api.disposition(active.id, disposition, when);
                  setCall({ ...active, ...updated });
                  setDisposition('');
                  setCallbackAt('');
                  if (disposition === 'callback') void loadCallbacks();
                });
              }}
            >
              <label className="desk-field">
                <span>{t('outbound.desk.disposition')}</span>
                <select
                  className="p-inputtext p-component desk-select"
                  value={disposition}
                  onChange={(event) => setDisposition(event.target.value)}
                  data-testid="outbound-disposition"
                >
                  <option value="">{t('outbound.desk.pickDisposition')}</option>
                  {OUTBOUND_DISPOSITIONS.map((code) => (
                    <option key={code} value={code}>
                      {t(`outbound.dispositions.${code}`)}
                    </option>
                  ))}
                </select>
              </label>
              {disposition === 'callback' && (
                <label className="desk-field">
                  <span>{t('outbound.desk.callbackAt')}</span>
                  <InputText
                    type="datetime-local"
                    value={callbackAt}
                    onChange={(event) => setCallbackAt(event.target.value)}
                    data-testid="outbound-callback-at"
                  />
                </label>
              )}
              <Button
                type="submit"
                label={t('outbound.desk.saveDisposition')}
                icon="pi pi-check"
                size="small"
                disabled={busy || !disposition || (disposition === 'callback' && !callbackAt)}
                data-testid="outbound-save-disposition"
              />
            </form>
          )}
        </div>
      )}
      {call && call.status === 'done' && (
        <p className="muted" data-testid="outbound-done" role="status">
          {t('outbound.desk.saved', { disposition: call.disposition ? t(`outbound.dispositions.${call.disposition}`) : '—' })}
        </p>
      )}
      <MyCallbacks callbacks={myCallbacks} onRefresh={() => void loadCallbacks()} />
    </div>
  );
}

/** The agent's own pending callbacks, soonest first: who to call back and when. */
function MyCallbacks({ callbacks, onRefresh }: { callbacks: OutboundCallback[] | null; onRefresh(): void }) {
  const { t } = useTranslation();
  const now = Date.now();
  return (
    <section className="outbound-my-callbacks" data-testid="my-callbacks" aria-label={t('outbound.desk.myCallbacks')}>
      <header>
        <h3>
          <i className="pi pi-calendar-clock" aria-hidden="true" /> {t('outbound.desk.myCallbacks')}
        </h3>
        <Button
          icon="pi pi-refresh"
          text
          rounded
          size="small"
          aria-label={t('outbound.callbacks.refresh')}
          data-testid="my-callbacks-refresh"
          onClick={onRefresh}
        />
      </header>
      {callbacks === null ? (
        <p className="muted" role="status">
          {t('common.loading')}
        </p>
      ) : callbacks.length === 0 ? (
        <p className="muted" data-testid="my-callbacks-empty">
          {t('outbound.desk.noCallbacks')}
        </p>
      ) : (
        <ul>
          {callbacks.map((callback) => (
            <li key={callback.id} data-testid="my-callback" className={isOverdue(callback, now) ? 'outbound-row--overdue' : undefined}>
              <span>
                <strong>{callback.contactName ?? callback.phone}</strong>
                {callback.contactName && <span className="muted"> {callback.phone}</span>}
              </span>
              <span className="muted">{callback.campaignName}</span>
              <span>
                {formatDateTime(callback.dueAt, t)}
                {isOverdue(callback, now) && <span className="outbound-overdue-label"> · {t('outbound.callbacks.overdue')}</span>}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
