import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { InputText } from 'primereact/inputtext';
import { CALL_DISPOSITIONS, CALL_NOTES_MAX, OUTBOUND_DISPOSITIONS, type CallDisposition } from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { formatDuration } from '../desk/logic/time';
import { useToast } from '../toast/ToastProvider';
import { dispositionTarget, outboundDispositionBody } from './dialer-call';
import { InboundScreenPop } from './InboundScreenPop';
import { knownCaller } from './screen-pop';
import { DTMF_TONES } from './sip-adapter';
import { useSoftphone, type SoftphoneHandle } from './useSoftphone';
import './softphone.css';

type PhoneState = 'loading' | 'unregistered' | 'registering' | 'registered' | 'ringing' | 'calling' | 'inCall' | 'ended' | 'failed';

/** The softphone: status, dial pad, call controls, screen pop and the disposition form on hang-up. */
export function SoftphonePanel({ compact = false, onRing }: { compact?: boolean; onRing?: () => void }) {
  const { t } = useTranslation();
  const phone = useSoftphone();
  const { settings, loadError, snapshot } = phone;

  if (loadError) {
    return (
      <div className="softphone softphone--message" role="alert" data-testid="softphone-error">
        {describeError(loadError, t)}
      </div>
    );
  }
  if (!settings || (settings.configured && !snapshot)) {
    return (
      <div className="softphone softphone--message muted" role="status" data-testid="softphone-loading">
        {t('common.loading')}
      </div>
    );
  }
  if (!settings.configured) {
    return (
      <div className="softphone softphone--message" data-testid="softphone-not-configured">
        <i className="pi pi-info-circle" aria-hidden="true" /> {t('softphone.notConfigured')}
      </div>
    );
  }
  return <PhoneBody phone={phone} compact={compact} onRing={onRing} />;
}

function PhoneBody({ phone, compact, onRing }: { phone: SoftphoneHandle; compact: boolean; onRing?: () => void }) {
  const { t } = useTranslation();
  const { settings, snapshot, send } = phone;
  const state = (snapshot?.value ?? 'loading') as PhoneState;
  const context = snapshot!.context;
  const call = context.call;
  const [number, setNumber] = useState('');
  const [transferTo, setTransferTo] = useState('');
  const now = useTicker(state === 'inCall');
  // A ringing call shows itself (the dock opens, and in the desk's side column the call scrolls to the top, again once
  // its screen pop has loaded), so the pop is seen before answering.
  const callSection = useRef<HTMLElement>(null);
  const popStatus = phone.inbound?.status ?? null;
  useEffect(() => {
    if (state !== 'ringing') return;
    onRing?.();
    const frame = window.requestAnimationFrame(() => scrollToTopOfColumn(callSection.current));
    return () => window.cancelAnimationFrame(frame);
  }, [state, onRing, popStatus]);

  const dial = () => send({ type: 'phone.dial', target: number });
  const canDial = state === 'registered' || state === 'ended';

  return (
    <div className={`softphone${compact ? ' softphone--compact' : ''}`} data-testid="softphone" data-state={state}>
      <div className="softphone__head">
        <span className={`softphone-status softphone-status--${state}`} data-testid="softphone-status" data-state={state}>
          <i className="pi pi-circle-fill" aria-hidden="true" /> {t(`softphone.status.${state}`)}
        </span>
        <span className="muted softphone__identity" data-testid="softphone-identity">
          {t('softphone.extension', { extension: settings!.extension })}
        </span>
      </div>

      {state === 'failed' && (
        <div className="softphone__alert" role="alert" data-testid="softphone-failure">
          <span>{t(`softphone.errors.${errorKey(context.error)}`, { code: context.error })}</span>
          <Button
            label={t('softphone.retry')}
            icon="pi pi-refresh"
            size="small"
            text
            onClick={() => send({ type: 'phone.register' })}
            data-testid="softphone-retry"
          />
        </div>
      )}

      {call && state !== 'registered' && (
        <section className="softphone__call" aria-live="polite" data-testid="softphone-call" ref={callSection}>
          <div className="softphone__call-title">
            {t(
              `softphone.callTitle.${state === 'ringing' ? 'ringing' : state === 'calling' ? 'calling' : state === 'inCall' ? 'inCall' : 'ended'}`,
              {
                number: call.remoteNumber,
              },
            )}
          </div>
          {state === 'inCall' && call.answeredAt ? (
            <div className="softphone__timer" data-testid="softphone-timer">
              {formatDuration(Math.max(0, now - call.answeredAt))}
            </div>
          ) : null}
          {state === 'ended' && call.endReason ? (
            <div className="muted" data-testid="softphone-end-reason">
              {t(`softphone.endReason.${call.endReason}`)}
            </div>
          ) : null}
          {/* Answer and Decline above the screen pop: they stay in sight however long the pop is. */}
          {state === 'ringing' && (
            <div className="softphone__actions">
              <Button
                label={t('softphone.answer')}
                icon="pi pi-phone"
                severity="success"
                onClick={() => send({ type: 'phone.answer' })}
                data-testid="softphone-answer"
              />
              <Button
                label={t('softphone.decline')}
                icon="pi pi-times"
                severity="danger"
                outlined
                onClick={() => send({ type: 'phone.decline' })}
                data-testid="softphone-decline"
              />
            </div>
          )}
          <ScreenPop phone={phone} />
        </section>
      )}

      {(state === 'calling' || state === 'inCall') && (
        <div className="softphone__actions">
          {state === 'inCall' && (
            <>
              <Button
                label={context.muted ? t('softphone.unmute') : t('softphone.mute')}
                icon={context.muted ? 'pi pi-volume-off' : 'pi pi-volume-up'}
                outlined={!context.muted}
                aria-pressed={context.muted}
                onClick={() => send({ type: 'phone.mute.toggle' })}
                data-testid="softphone-mute"
              />
              <Button
                label={context.held ? t('softphone.resume') : t('softphone.hold')}
                icon={context.held ? 'pi pi-play' : 'pi pi-pause'}
                outlined={!context.held}
                aria-pressed={context.held}
                onClick={() => send({ type: 'phone.hold.toggle' })}
                data-testid="softphone-hold"
              />
            </>
          )}
          <Button
            label={t('softphone.hangUp')}
            icon="pi pi-phone"
            severity="danger"
            onClick={() => send({ type: 'phone.hangup' })}
            data-testid="softphone-hangup"
          />
        </div>
      )}

      {state === 'inCall' && (
        <>
          <Keypad label={t('softphone.dtmf')} onTone={(tone) => send({ type: 'phone.dtmf', tone })} testPrefix="softphone-dtmf" />
          <dl className="softphone__tones">
            <dt>{t('softphone.tonesSent')}</dt>
            <dd data-testid="softphone-dtmf-sent">{context.dtmfSent || '—'}</dd>
            <dt>{t('softphone.tonesReceived')}</dt>
            <dd data-testid="softphone-dtmf-received">{context.dtmfReceived || '—'}</dd>
          </dl>
          <form
            className="softphone__row"
            onSubmit={(event) => {
              event.preventDefault();
              send({ type: 'phone.transfer', target: transferTo });
            }}
          >
            <InputText
              value={transferTo}
              onChange={(event) => setTransferTo(event.target.value)}
              placeholder={t('softphone.transferPlaceholder')}
              aria-label={t('softphone.transferTo')}
              data-testid="softphone-transfer-target"
            />
            <Button
              type="submit"
              label={t('softphone.transfer')}
              icon="pi pi-directions"
              outlined
              disabled={!transferTo.trim()}
              data-testid="softphone-transfer"
            />
          </form>
          {context.failedAction && (
            <p className="softphone__alert" role="alert" data-testid="softphone-action-failed">
              {t('softphone.errors.action', { action: t(`softphone.actions.${actionKey(context.failedAction)}`) })}
            </p>
          )}
        </>
      )}

      {state === 'ended' &&
        call &&
        (dispositionTarget(call).kind === 'outbound' ? (
          <DialerDispositionForm phone={phone} key={`${call.callId}-${call.endedAt}`} />
        ) : (
          <DispositionForm phone={phone} key={`${call.callId}-${call.endedAt}`} />
        ))}

      {canDial && (
        <form
          className="softphone__dialer"
          onSubmit={(event) => {
            event.preventDefault();
            dial();
          }}
        >
          <div className="softphone__row">
            <InputText
              value={number}
              onChange={(event) => setNumber(event.target.value)}
              placeholder={t('softphone.numberPlaceholder')}
              aria-label={t('softphone.number')}
              inputMode="tel"
              data-testid="softphone-number"
            />
            <Button
              type="submit"
              label={t('softphone.call')}
              icon="pi pi-phone"
              severity="success"
              disabled={!number.trim()}
              data-testid="softphone-call"
            />
          </div>
          {!compact && (
            <Keypad label={t('softphone.keypad')} onTone={(tone) => setNumber((value) => value + tone)} testPrefix="softphone-key" />
          )}
        </form>
      )}
    </div>
  );
}

function ScreenPop({ phone }: { phone: SoftphoneHandle }) {
  const { t } = useTranslation();
  const call = phone.snapshot!.context.call!;
  const caller = phone.caller;
  if (phone.dialer) return <DialerScreenPop phone={phone} />;
  if (phone.inbound) return <InboundScreenPop phone={phone} />;
  return (
    <div className="softphone__pop" data-testid="softphone-screen-pop">
      <div className="softphone__pop-number">
        <i className="pi pi-user" aria-hidden="true" /> <span data-testid="softphone-remote-number">{call.remoteNumber}</span>
        {call.remoteName ? <span className="muted"> · {call.remoteName}</span> : null}
      </div>
      {!caller ? (
        <span className="muted">{t('common.loading')}</span>
      ) : caller.contacts.length === 0 ? (
        <span className="muted" data-testid="softphone-no-contact">
          {t('softphone.noContact')}
        </span>
      ) : (
        <ul className="softphone__contacts" data-testid="softphone-contacts">
          {caller.contacts.map((contact, index) => (
            <li key={`${contact.phone}-${index}`}>
              <strong>{contact.name ?? t('softphone.unnamed')}</strong> <span className="muted">{contact.phone}</span>{' '}
              <span className="softphone__tag">{contact.listName ?? t('softphone.colleague')}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A call the outbound dialer bridged: the contact and campaign from the outbound API (as on the desk's outbound panel). */
function DialerScreenPop({ phone }: { phone: SoftphoneHandle }) {
  const { t } = useTranslation();
  const call = phone.snapshot!.context.call!;
  const dialer = phone.dialer!;
  const outbound = dialer.status === 'ready' ? dialer.call : null;
  return (
    <div className="softphone__pop" data-testid="softphone-dialer-pop" data-outbound-call-id={call.outboundCallId ?? ''}>
      <span className="softphone__tag" data-testid="softphone-dialer-badge">
        <i className="pi pi-megaphone" aria-hidden="true" /> {t('softphone.dialer.badge')}
      </span>
      <div className="softphone__pop-number">
        <i className="pi pi-user" aria-hidden="true" />{' '}
        <span data-testid="softphone-remote-number">{outbound?.phone ?? call.remoteNumber}</span>
      </div>
      {dialer.status === 'loading' ? (
        <span className="muted" role="status">
          {t('common.loading')}
        </span>
      ) : !outbound ? (
        <span className="muted" data-testid="softphone-dialer-unavailable">
          {t('softphone.dialer.unavailable')}
        </span>
      ) : (
        <dl className="softphone__tones" data-testid="softphone-dialer-facts">
          <dt>{t('outbound.fields.contact')}</dt>
          <dd data-testid="softphone-dialer-contact">{outbound.contactName ?? t('softphone.unnamed')}</dd>
          <dt>{t('outbound.fields.campaign')}</dt>
          <dd data-testid="softphone-dialer-campaign">{outbound.campaignName || '—'}</dd>
          <dt>{t('outbound.fields.attempt')}</dt>
          <dd>{outbound.attempt}</dd>
        </dl>
      )}
    </div>
  );
}

/**
 * UpdDISPO for a dialer call: the outbound dispositions, stored on the outbound call and its contact.
 * Skipped, the outbound call still ends when its wrap-up time runs out.
 */
function DialerDispositionForm({ phone }: { phone: SoftphoneHandle }) {
  const { t } = useTranslation();
  const call = phone.snapshot!.context.call!;
  const [disposition, setDisposition] = useState('');
  const [callbackAt, setCallbackAt] = useState('');
  const body = outboundDispositionBody(disposition, callbackAt);
  return (
    <DispositionShell
      phone={phone}
      testPrefix="softphone-dialer-disposition"
      title={t('softphone.dialer.dispositionTitle')}
      value={disposition}
      onValue={setDisposition}
      placeholder={t('softphone.dialer.pick')}
      options={OUTBOUND_DISPOSITIONS.map((code) => ({ value: code, label: t(`outbound.dispositions.${code}`) }))}
      canSave={body !== null}
      save={async () => {
        if (body && call.outboundCallId) await phone.outbound.disposition(call.outboundCallId, body.disposition, body.callbackAt);
      }}
    >
      {disposition === 'callback' && (
        <label className="softphone__field">
          <span>{t('outbound.desk.callbackAt')}</span>
          <InputText
            type="datetime-local"
            value={callbackAt}
            onChange={(event) => setCallbackAt(event.target.value)}
            data-testid="softphone-dialer-callback-at"
          />
        </label>
      )}
    </DispositionShell>
  );
}

function DispositionForm({ phone }: { phone: SoftphoneHandle }) {
  const { t } = useTranslation();
  const call = phone.snapshot!.context.call!;
  const [disposition, setDisposition] = useState<CallDisposition>(call.answeredAt ? 'resolved' : 'noAnswer');
  const [notes, setNotes] = useState('');
  const inbound = phone.inbound?.status === 'ready' ? phone.inbound : null;
  const known = inbound ? knownCaller(inbound.person, inbound.pop.conversationId, inbound.pop.from) : null;
  const contactName = known?.name ?? phone.caller?.contacts[0]?.name ?? call.remoteName ?? undefined;
  return (
    <DispositionShell
      phone={phone}
      testPrefix="softphone-disposition"
      title={t('softphone.disposition.title')}
      value={disposition}
      onValue={(value) => setDisposition(value as CallDisposition)}
      options={CALL_DISPOSITIONS.map((value) => ({ value, label: t(`softphone.dispositions.${value}`) }))}
      canSave
      save={() =>
        phone.api.saveDisposition({
          callId: call.callId ?? `local-${call.endedAt}`,
          direction: call.direction,
          remoteNumber: call.remoteNumber,
          disposition,
          notes: notes.trim() || undefined,
          contactName: contactName || undefined,
          durationSeconds: call.answeredAt && call.endedAt ? Math.round((call.endedAt - call.answeredAt) / 1000) : undefined,
        })
      }
    >
      <label className="softphone__field">
        <span>{t('softphone.disposition.notes')}</span>
        <textarea
          className="p-inputtextarea p-inputtext p-component"
          rows={2}
          maxLength={CALL_NOTES_MAX}
          value={notes}
          onChange={(event) => setNotes(event.target.value)}
          data-testid="softphone-disposition-notes"
        />
      </label>
    </DispositionShell>
  );
}

/**
 * The wrap-up form both kinds of call share: a disposition picker, the kind's own fields, save
 * (then the phone is ready again) and skip. Test ids are `<testPrefix>`, `-select`, `-save`, `-skip`.
 */
function DispositionShell({
  phone,
  testPrefix,
  title,
  value,
  onValue,
  placeholder,
  options,
  canSave,
  save,
  children,
}: {
  phone: SoftphoneHandle;
  testPrefix: string;
  title: string;
  value: string;
  onValue(value: string): void;
  /** A first, empty option when nothing is picked by default. */
  placeholder?: string;
  options: { value: string; label: string }[];
  canSave: boolean;
  save(): Promise<unknown>;
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const [saving, setSaving] = useState(false);
  const submit = async () => {
    if (!canSave) return;
    setSaving(true);
    try {
      await save();
      toast.success(t('softphone.disposition.saved'));
      phone.send({ type: 'phone.wrapUp.done' });
    } catch (error) {
      toast.error(t('softphone.disposition.failed'), describeError(error, t));
    } finally {
      setSaving(false);
    }
  };
  return (
    <form
      className="softphone__disposition"
      data-testid={testPrefix}
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <h3 className="softphone__subtitle">{title}</h3>
      <label className="softphone__field">
        <span>{t('softphone.disposition.label')}</span>
        <select
          className="p-inputtext p-component"
          value={value}
          onChange={(event) => onValue(event.target.value)}
          data-testid={`${testPrefix}-select`}
        >
          {placeholder !== undefined && <option value="">{placeholder}</option>}
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      {children}
      <div className="softphone__actions">
        <Button
          type="submit"
          label={t('softphone.disposition.save')}
          icon="pi pi-check"
          loading={saving}
          disabled={!canSave}
          data-testid={`${testPrefix}-save`}
        />
        <Button
          type="button"
          label={t('softphone.disposition.skip')}
          text
          disabled={saving}
          onClick={() => phone.send({ type: 'phone.wrapUp.done' })}
          data-testid={`${testPrefix}-skip`}
        />
      </div>
    </form>
  );
}

function Keypad({ label, onTone, testPrefix }: { label: string; onTone(tone: string): void; testPrefix: string }) {
  return (
    <div className="softphone__keypad" role="group" aria-label={label}>
      {DTMF_TONES.map((tone) => (
        <button
          type="button"
          key={tone}
          className="softphone__key"
          onClick={() => onTone(tone)}
          data-testid={`${testPrefix}-${tone === '#' ? 'hash' : tone === '*' ? 'star' : tone}`}
        >
          {tone}
        </button>
      ))}
    </div>
  );
}

/**
 * Scrolls the nearest scrolling ancestor (the desk's side column, or the dock's own panel) so `element` is at its top,
 * and nothing else: scrollIntoView would move the whole page too.
 */
function scrollToTopOfColumn(element: HTMLElement | null): void {
  for (let parent = element?.parentElement; element && parent && parent !== document.body; parent = parent.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(parent).overflowY) && parent.scrollHeight > parent.clientHeight) {
      parent.scrollTop += element.getBoundingClientRect().top - parent.getBoundingClientRect().top;
      return;
    }
  }
}

function useTicker(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [active]);
  return now;
}

function errorKey(error: string | null): string {
  if (error && /^\d+$/.test(error)) return 'refused';
  return error === 'connection' || error === 'disconnected' ? error : 'unknown';
}

const KNOWN_ACTIONS = ['dial', 'answer', 'decline', 'hangup', 'hold', 'dtmf', 'transfer'];
function actionKey(action: string): string {
  return KNOWN_ACTIONS.includes(action) ? action : 'other';
}
