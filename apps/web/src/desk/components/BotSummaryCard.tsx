import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { BotSummaryView } from '@centralita/contracts';
import { useServices } from '../../app/ServicesContext';
import { createBotApi } from '../../admin/bot/bot-api';
import './bot.css';

type Load = { state: 'loading' } | { state: 'failed' } | { state: 'ready'; summary: BotSummaryView | null };

/**
 * What the bot collected before the handoff (issue 23): why it handed off, what it answered and
 * what it could not. The transcript itself is the conversation's messages (the bot's shown as its own).
 * Nothing is shown for a conversation the bot never took.
 */
export function BotSummaryCard({ conversationId }: { conversationId: string }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const api = useMemo(() => createBotApi(client), [client]);
  const [load, setLoad] = useState<Load>({ state: 'loading' });

  useEffect(() => {
    let current = true;
    setLoad({ state: 'loading' });
    api
      .summary(conversationId)
      .then((summary) => current && setLoad({ state: 'ready', summary }))
      .catch(() => current && setLoad({ state: 'failed' }));
    return () => {
      current = false;
    };
  }, [api, conversationId]);

  if (load.state !== 'ready' || !load.summary) return null;
  const { summary } = load;
  return (
    <section className="desk-bot-summary" data-testid="bot-summary" aria-label={t('bot.summary.title')}>
      <h3 className="desk-customer__subtitle">
        <i className="pi pi-android" aria-hidden="true" /> {t('bot.summary.title')}
      </h3>
      <dl className="desk-facts">
        <dt>{t('bot.summary.turns')}</dt>
        <dd data-testid="bot-summary-turns">{summary.turns}</dd>
        {summary.handoffReason ? (
          <>
            <dt>{t('bot.summary.reason')}</dt>
            <dd data-testid="bot-summary-reason">{t(`bot.summary.reasons.${summary.handoffReason}`)}</dd>
          </>
        ) : null}
      </dl>
      <h4 className="desk-bot-summary__heading">{t('bot.summary.answered')}</h4>
      {summary.answered.length ? (
        <ul className="desk-bot-summary__list" data-testid="bot-summary-answered">
          {summary.answered.map((one, index) => (
            <li key={index}>
              <span>{one.question}</span>
              <span className="muted"> → {one.qnaQuestion}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{t('bot.summary.none')}</p>
      )}
      <h4 className="desk-bot-summary__heading">{t('bot.summary.unanswered')}</h4>
      {summary.unanswered.length ? (
        <ul className="desk-bot-summary__list" data-testid="bot-summary-unanswered">
          {summary.unanswered.map((text, index) => (
            <li key={index}>{text}</li>
          ))}
        </ul>
      ) : (
        <p className="muted">{t('bot.summary.none')}</p>
      )}
    </section>
  );
}
