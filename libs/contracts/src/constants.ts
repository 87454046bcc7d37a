/** Business constants of spec §9. Contracts: keep the values exactly. */
export const LAYOUT = { headerHeight: 64, sidebarWidth: 260, sidebarCompactWidth: 80 } as const;
export const THEME_DEFAULTS = { theme: 'blue', layout: 'layout1', sidebar: 'compact-dark', topbar: 'fixed' } as const;
export const CHANNEL_IDS = { WebChat: 7, FaceBook: 5, Instagram: 18, Twitter: 6, Telegram: 17, WhatsApp: 80 } as const;
export type ChannelName = keyof typeof CHANNEL_IDS;
/** Channels the platform serves that spec §9 gives no id: a display name only (issue 20: email). */
export type UnnumberedChannelName = 'Email';
/**
 * A digital channel as the platform stores it (conversations, contacts, messages) and as the
 * conversation intake takes it: the lower-case spelling of its CHANNEL_IDS name, or of its display
 * name for a channel without a spec §9 id (email).
 */
export const CHANNEL_KINDS = {
  webchat: 'WebChat',
  facebook: 'FaceBook',
  instagram: 'Instagram',
  twitter: 'Twitter',
  telegram: 'Telegram',
  whatsapp: 'WhatsApp',
  email: 'Email',
} as const satisfies Record<string, ChannelName | UnnumberedChannelName>;
export type ChannelKind = keyof typeof CHANNEL_KINDS;
/** The kind a channel name or spec §9 id stands for ('WebChat', 'directline', 7 → 'webchat'); null when it names none. */
export function channelKindOf(channel: string | number): ChannelKind | null {
  const raw = String(channel).trim();
  const byId = /^\d+$/.test(raw)
    ? (Object.keys(CHANNEL_IDS) as ChannelName[]).find((name) => CHANNEL_IDS[name] === Number(raw))
    : undefined;
  const key = (byId ?? displayChannel(raw)).toLowerCase();
  return Object.hasOwn(CHANNEL_KINDS, key) ? (key as ChannelKind) : null;
}
export const MODULE_IDS = { DigitalChannels: 29 } as const;
export const LANGUAGES = ['es', 'en', 'el', 'it', 'sr', 'de', 'ru'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'es';
export const LIMITS = {
  maxChatsPerAgent: 5,
  maxMessageLength: 500,
  minPhoneDigits: 8,
  rankSum: 100,
  chatInputMaxRows: 4,
  minPasswordLength: 8,
} as const;
/**
 * Password strength rule (issue 17): a password of fewer than `passphraseLength` characters must
 * score at least `minScore` (0-4) on the zxcvbn estimator; passphrases of that length or more are
 * always accepted. The API checks it (apps/api/src/modules/auth/password-policy.ts).
 */
export const PASSWORD_POLICY = { minScore: 3, passphraseLength: 16 } as const;
export const TOAST_LIFE_MS = 10_000;
export const WIDGET_WIDTH_PX = 360;
/** Channel 'directline' is the Bot Framework name for web chat and displays as WebChat. */
export function displayChannel(name: string): string {
  return name.toLowerCase() === 'directline' ? 'WebChat' : name;
}
