/** Business constants of spec §9. Contracts: keep the values exactly. */
export const LAYOUT = { headerHeight: 64, sidebarWidth: 260, sidebarCompactWidth: 80 } as const;
export const THEME_DEFAULTS = { theme: 'blue', layout: 'layout1', sidebar: 'compact-dark', topbar: 'fixed' } as const;
export const CHANNEL_IDS = { WebChat: 7, FaceBook: 5, Instagram: 18, Twitter: 6, Telegram: 17, WhatsApp: 80 } as const;
export type ChannelName = keyof typeof CHANNEL_IDS;
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
