import { MESSAGING_KINDS } from '@centralita/contracts';

/**
 * Only a web widget's visitor listens in the visitor namespace: a messaging channel's conversation
 * (WhatsApp, Telegram, email…) has none, and each visitor emit costs a Redis write per message.
 */
export function hasVisitor(channel: string | null): boolean {
  return channel !== null && !(MESSAGING_KINDS as readonly string[]).includes(channel);
}
