import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ChannelBadge } from '../desk/components/Badges';
import { formatDuration } from '../desk/logic/time';
import { formatDateTime } from '../format/format';
import { formatIvrPath, knownCaller, waitedMs } from './screen-pop';
import type { SoftphoneHandle } from './useSoftphone';

/**
 * The screen pop of an inbound call the voice server bridged to this softphone (issue 22 item 2): the caller's number,
 * the line, the IVR path they walked with the keys they pressed, how long they waited, and, when the number belongs to a
 * contact the tenant knows, its name, recent conversations and open cases (links open the case in a new tab, so the
 * ringing call stays here). Answer and Decline are the softphone's own buttons under it.
 */
export function InboundScreenPop({ phone }: { phone: SoftphoneHandle }) {
  const { t } = useTranslation();
  const call = phone.snapshot!.context.call!;
  const inbound = phone.inbound!;
  const ringing = phone.snapshot!.value === 'ringing';
  const now = useNow(ringing);
  const ready = inbound.status === 'ready' ? inbound : null;
  const pop = ready?.pop ?? null;
  const path = pop ? formatIvrPath(pop.ivrPath) : '';
  const waited = pop ? waitedMs(pop, call.answeredAt ?? now) : null;
  const known = ready ? knownCaller(ready.person, pop!.conversationId, pop!.from ?? call.remoteNumber) : null;
  return (
    <div
      className="softphone__pop softphone__pop--inbound"
      data-testid="softphone-inbound-pop"
      data-conversation-id={call.conversationId ?? ''}
      data-status={inbound.status}
    >
      <span className="softphone__tag" data-testid="softphone-inbound-badge">
        <i className="pi pi-phone" aria-hidden="true" /> {t('softphone.pop.badge')}
      </span>
      <div className="softphone__pop-number">
        <i className="pi pi-user" aria-hidden="true" /> <span data-testid="softphone-remote-number">{pop?.from || call.remoteNumber}</span>
        {known ? (
          <strong className="softphone__pop-name" data-testid="softphone-pop-contact">
            {' '}
            · {known.name}
          </strong>
        ) : null}
      </div>
      {inbound.status === 'loading' ? (
        <span className="muted" role="status" data-testid="softphone-pop-loading">
          {t('softphone.pop.loading')}
        </span>
      ) : !pop ? (
        <span className="muted" data-testid="softphone-pop-unavailable">
          {t('softphone.pop.unavailable')}
        </span>
      ) : (
        <>
          <dl className="softphone__facts" data-testid="softphone-pop-facts">
            <dt>{t('softphone.pop.line')}</dt>
            <dd data-testid="softphone-pop-line">{pop.lineName ?? '—'}</dd>
            <dt>{t('softphone.pop.ivrPath')}</dt>
            <dd data-testid="softphone-pop-ivr">{path || t('softphone.pop.noIvr')}</dd>
            <dt>{t('softphone.pop.waited')}</dt>
            <dd data-testid="softphone-pop-waited">{waited === null ? '—' : formatDuration(waited)}</dd>
            {pop.to ? (
              <>
                <dt>{t('softphone.pop.called')}</dt>
                <dd data-testid="softphone-pop-called">{pop.to}</dd>
              </>
            ) : null}
          </dl>
          {ready!.personFailed ? (
            <span className="muted" data-testid="softphone-pop-contact-failed">
              {t('softphone.pop.contactFailed')}
            </span>
          ) : !known ? (
            <span className="muted" data-testid="softphone-pop-new-caller">
              {t('softphone.pop.newCaller')}
            </span>
          ) : (
            <>
              <h4 className="softphone__pop-subtitle">{t('softphone.pop.openCases')}</h4>
              {known.openCases.length === 0 ? (
                <span className="muted" data-testid="softphone-pop-no-cases">
                  {t('softphone.pop.noCases')}
                </span>
              ) : (
                <ul className="softphone__pop-list" data-testid="softphone-pop-cases">
                  {known.openCases.map((entry) => (
                    <li key={entry.id} data-testid="softphone-pop-case" data-id={entry.id}>
                      <a href={`/crm/crmlist?case=${encodeURIComponent(entry.id)}`} target="_blank" rel="noopener">
                        <i className="pi pi-briefcase" aria-hidden="true" /> {t('contacts.case', { code: entry.code ?? '' })}
                      </a>{' '}
                      <span className="muted">
                        {entry.subject ?? ''}
                        {entry.status ? ` · ${t(`crm.status.${entry.status}`, { defaultValue: entry.status })}` : ''}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
              <h4 className="softphone__pop-subtitle">{t('softphone.pop.recent')}</h4>
              {known.recent.length === 0 ? (
                <span className="muted" data-testid="softphone-pop-no-recent">
                  {t('softphone.pop.noRecent')}
                </span>
              ) : (
                <ul className="softphone__pop-list" data-testid="softphone-pop-recent">
                  {known.recent.map((entry) => (
                    <li key={entry.id} data-testid="softphone-pop-conversation" data-id={entry.id}>
                      <ChannelBadge channel={entry.channel} compact /> {formatDateTime(entry.createdAt)}{' '}
                      <span className="muted">
                        {entry.lineName ?? '—'} · {t(`desk.conversationStatus.${entry.status}`, { defaultValue: entry.status })}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </>
          )}
        </>
      )}
    </div>
  );
}

/** The time now, every second while `active` (the waited time counts up while the phone rings). */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [active]);
  return now;
}
