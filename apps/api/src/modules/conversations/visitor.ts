import { isMessagingChannel, PHONE_CHANNEL } from '@centralita/contracts';

/**
 * Only a web visitor (the chat widget, a video link) listens in the visitor namespace: a messaging
 * channel's conversation (WhatsApp, Telegram, email…) and a caller's have none, and each visitor
 * emit costs a Redis write per message.
 */
export function hasVisitor(channel: string | null): boolean {
  return channel !== null && channel !== PHONE_CHANNEL && !isMessagingChannel(channel);
}
