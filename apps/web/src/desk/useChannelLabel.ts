import { TRANSLATED_CHANNEL_CODES, valueLabel } from '@centralita/contracts';
import { useTranslation } from 'react-i18next';
import { normaliseLanguage } from '../i18n/languages';
import { channelIdentity, type ChannelIdentity } from './logic/channels';

/**
 * A channel's name in the user's language: brand names (WhatsApp, Telegram…) stay as they are,
 * the channels named by a word (phone, email, video) are translated, as in reports and dashboards.
 */
export function useChannelLabel(): (channel: ChannelIdentity | string | number | null | undefined) => string {
  const { i18n } = useTranslation();
  const language = normaliseLanguage(i18n.resolvedLanguage ?? i18n.language);
  return (channel) => {
    const identity = typeof channel === 'object' && channel !== null ? channel : channelIdentity(channel);
    return (TRANSLATED_CHANNEL_CODES as readonly string[]).includes(identity.key)
      ? valueLabel('channel', identity.key, language)
      : identity.label;
  };
}
