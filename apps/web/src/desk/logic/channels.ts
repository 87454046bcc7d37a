import { CHANNEL_IDS, displayChannel } from '@centralita/contracts';

/** One identity per channel (spec §9): the id the platform knows it by, its label, icon and colour. */
export interface ChannelIdentity {
  key: string;
  label: string;
  /** Spec §9 channel id; null for channels the spec gives none (phone, email, video). */
  id: number | null;
  icon: string;
  color: string;
}

export const CHANNELS: ChannelIdentity[] = [
  { key: 'webchat', label: 'WebChat', id: CHANNEL_IDS.WebChat, icon: 'pi pi-comments', color: '#2563eb' },
  { key: 'facebook', label: 'FaceBook', id: CHANNEL_IDS.FaceBook, icon: 'pi pi-facebook', color: '#1877f2' },
  { key: 'instagram', label: 'Instagram', id: CHANNEL_IDS.Instagram, icon: 'pi pi-instagram', color: '#c13584' },
  { key: 'twitter', label: 'Twitter', id: CHANNEL_IDS.Twitter, icon: 'pi pi-twitter', color: '#0f1419' },
  { key: 'telegram', label: 'Telegram', id: CHANNEL_IDS.Telegram, icon: 'pi pi-telegram', color: '#229ed9' },
  { key: 'whatsapp', label: 'WhatsApp', id: CHANNEL_IDS.WhatsApp, icon: 'pi pi-whatsapp', color: '#25d366' },
  { key: 'phone', label: 'Phone', id: null, icon: 'pi pi-phone', color: '#7c3aed' },
  { key: 'email', label: 'Email', id: null, icon: 'pi pi-envelope', color: '#b45309' },
  { key: 'video', label: 'Video', id: null, icon: 'pi pi-video', color: '#0d9488' },
];

const UNKNOWN: Omit<ChannelIdentity, 'key' | 'label'> = { id: null, icon: 'pi pi-question-circle', color: '#64748b' };

/**
 * The identity of a channel given by name ('webchat', 'WhatsApp', 'directline'…) or by its spec id
 * (7, '80'…). 'directline' is the Bot Framework's name for web chat and shows as WebChat.
 */
export function channelIdentity(channel: string | number | null | undefined): ChannelIdentity {
  if (channel === null || channel === undefined || channel === '') return { key: 'unknown', label: 'N/A', ...UNKNOWN };
  const raw = String(channel).trim();
  if (/^\d+$/.test(raw)) {
    const byId = CHANNELS.find((entry) => entry.id === Number(raw));
    if (byId) return byId;
  }
  const key = displayChannel(raw)
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
  const aliases: Record<string, string> = {
    x: 'twitter',
    messenger: 'facebook',
    web: 'webchat',
    call: 'phone',
    voice: 'phone',
    mail: 'email',
  };
  const found = CHANNELS.find((entry) => entry.key === (aliases[key] ?? key));
  return found ?? { key, label: raw, ...UNKNOWN };
}
