import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import type { ConversationView, MessageView } from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { ChatInput } from '../desk/components/ChatInput';
import { MessageList } from '../desk/components/MessageList';
import type { VisitorApi } from '../desk/desk-api';
import { mergeDelivered as mergeMessages } from '../desk/logic/delivery';
import { QUERY_TYPES } from './widget-logic';
import '../desk/components/bot.css';

/**
 * The widget while the line's bot has the conversation (issue 23): the chat with the bot, a
 * "talk to a person" button, and the line's menu as buttons (a topic, then its submenu), which
 * queue the conversation as the menu form would. The bot's answers arrive as messages.
 */
export function BotChat({
  api,
  messages,
  setMessages,
  onDone,
  onError,
  onOpen,
}: {
  api: VisitorApi;
  messages: MessageView[];
  setMessages: (update: (held: MessageView[]) => MessageView[]) => void;
  onDone: (view: ConversationView) => void;
  onError: (message: string) => void;
  /** Reads the conversation again (the greeting was written when it started). */
  onOpen: () => void;
}) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [topic, setTopic] = useState<string | null>(null);
  useEffect(onOpen, [onOpen]);

  const leaveBot = async (go: () => Promise<ConversationView>) => {
    setBusy(true);
    try {
      onDone(await go());
    } catch (failure) {
      onError(`${t('bot.widget.handoffFailed')} ${describeError(failure, t)}`);
    } finally {
      setBusy(false);
    }
  };
  const submenus = QUERY_TYPES.find((type) => type.id === topic)?.submenus ?? [];

  return (
    <>
      <MessageList messages={messages} perspective="customer" />
      <div className="webchat-bot-actions" data-testid="webchat-bot-actions">
        <Button
          icon="pi pi-user"
          label={t('bot.widget.talkToPerson')}
          size="small"
          loading={busy}
          onClick={() => void leaveBot(api.botHandoff)}
          data-testid="webchat-bot-handoff"
        />
        <span className="webchat-bot-actions__label">{t('bot.widget.topics')}</span>
        {(topic ? submenus : QUERY_TYPES.map((type) => type.id)).map((id) => (
          <Button
            key={id}
            label={topic ? t(`desk.widget.submenus.${id}`) : t(`desk.widget.queryTypes.${id}`)}
            size="small"
            outlined
            disabled={busy}
            onClick={() => (topic ? void leaveBot(() => api.menu(topic, id)) : setTopic(id))}
            data-testid={topic ? `webchat-bot-submenu-${id}` : `webchat-bot-topic-${id}`}
          />
        ))}
        {topic ? <Button icon="pi pi-arrow-left" size="small" text aria-label={t('common.back')} onClick={() => setTopic(null)} /> : null}
      </div>
      <ChatInput
        testIdPrefix="webchat"
        onTyping={(on) => void api.typing(on).catch(() => undefined)}
        onSend={async (text, clientMessageId) => {
          try {
            const message = await api.send(text, clientMessageId);
            setMessages((held) => mergeMessages(held, [message]));
          } catch (failure) {
            onError(describeError(failure, t));
            throw failure;
          }
        }}
      />
    </>
  );
}
