import type { ChannelCapabilities } from '../adapter';

const MB = 1024 * 1024;

/**
 * X Direct Messages, from X's docs: a DM carries up to 10,000 characters and one attachment (a
 * photo up to 5 MB, a GIF or an MP4 video up to 512 MB); there are no documents or audio. X reports
 * only read receipts (direct_message_mark_read_events, when the recipient has them on) and typing
 * indicators; DMs have no reply window and no templates. X API v2 has no endpoint that marks a
 * customer's message as read (the v1.1 one went with the v1.1 DM endpoints), so markRead is off.
 */
export const X_CAPABILITIES: ChannelCapabilities = {
  textLimit: 10_000,
  attachments: {
    image: { maxBytes: 5 * MB, mimeTypes: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] },
    video: { maxBytes: 512 * MB, mimeTypes: ['video/mp4'] },
  },
  receipts: { delivered: false, read: true },
  typing: true,
  markRead: false,
  replyWindowHours: null,
  humanAgentTagHours: null,
  templates: false,
  // Quick reply options (v1.1 DM send): up to 20, labels of 36 characters, metadata of 1,000.
  buttons: { max: 20, titleMax: 36, payloadMaxBytes: 1000 },
};

/**
 * What an administrator enters for an X account. The consumer key/secret are the app's (the secret
 * also answers X's CRC and checks every webhook's signature); the access token and its secret are the
 * DM account's user-context OAuth 1.0a credentials; all four are required (the API refuses an account
 * without any listed secret). The adapter also honours an optional `oauth2UserToken` secret (an OAuth
 * 2.0 user bearer token, used for sends instead of OAuth 1.0a), which is not listed here because the
 * credentials contract has no notion of an optional secret and such tokens expire within hours.
 */
export const X_CREDENTIALS = {
  secrets: ['consumerKey', 'consumerSecret', 'accessToken', 'accessTokenSecret'],
  settings: [],
} as const;

/**
 * X's Account Activity API, the only way to receive DMs by webhook, is paid-only and being replaced,
 * so the channel is off unless the operator turns it on with CHANNEL_X_ENABLED=on. The API offers the
 * `twitter` kind (and accepts its webhooks) and the console shows it only when this answers true.
 */
export function xChannelEnabled(env: Record<string, string | undefined> = process.env): boolean {
  return (env.CHANNEL_X_ENABLED ?? '').trim().toLowerCase() === 'on';
}
