import type {
  ChannelAccount,
  ChannelAdapter,
  ChannelEndpoints,
  FetchedMedia,
  InboundMediaRef,
  OutboundMessage,
  SendResult,
} from '../adapter';
import { ChannelError } from '../adapter';
import { downloadLimited } from '../http';
import { fitButtons } from '../buttons';
import { registerXWebhook, uploadXMedia, xAuthorization, xCall, xOAuth1Authorization } from './api';
import { X_CAPABILITIES, X_CREDENTIALS } from './capabilities';
import { parseXWebhook, verifyXWebhook } from './webhook';

/**
 * X (Twitter) Direct Messages: webhooks from the Account Activity API (CRC + signed POSTs), sends
 * through X API v2 (`POST /2/dm_conversations/with/{participant_id}/messages`). The account's
 * externalAccountId is the X user id of the DM account (for_user_id in its webhooks).
 *
 * X has no idempotency key for DMs: a send retried after a lost answer may reach the customer twice;
 * the worker retries only errors X answered (429, 5xx) or network failures, as for every provider.
 */

/** Hosts X serves DM media from; anything else in a verified payload is refused rather than fetched with the account's authorization. */
const X_MEDIA_HOSTS = /(^|\.)(twitter\.com|x\.com|twimg\.com)$/i;

export function createTwitterAdapter(endpoints: ChannelEndpoints): ChannelAdapter {
  const apiUrl = endpoints.xApiUrl.replace(/\/+$/, '');
  const apiOrigin = new URL(apiUrl).origin;

  return {
    kind: 'twitter',
    capabilities: X_CAPABILITIES,
    credentials: X_CREDENTIALS,

    verifyWebhook(request, account) {
      try {
        return verifyXWebhook(request, account);
      } catch (error) {
        return { kind: 'refused', reason: `verification failed: ${(error as Error).message}` };
      }
    },

    parseWebhook: parseXWebhook,

    // X gives a delivery no id of its own (a re-delivery is the same body): the core hashes the raw body.
    deliveryId: () => null,

    async send(account: ChannelAccount, message: OutboundMessage): Promise<SendResult> {
      if (message.template) {
        throw new ChannelError('X direct messages have no templates', { code: 'templates_unsupported', retryable: false });
      }
      if (!/^\d{1,25}$/.test(message.to)) {
        throw new ChannelError(`not an X user id: ${message.to}`, { code: 'invalid_recipient', retryable: false });
      }
      const authorize = xAuthorization(account);
      const body: { text?: string; attachments?: { media_id: string }[] } = {};
      if (message.media) {
        const allowed = X_CAPABILITIES.attachments[message.media.kind];
        if (!allowed || !allowed.mimeTypes.includes(message.media.mimeType)) {
          throw new ChannelError(`X direct messages do not carry ${message.media.mimeType} (${message.media.kind})`, {
            code: 'unsupported_media',
            retryable: false,
          });
        }
        const mediaId = await uploadXMedia(apiUrl, authorize, message.media);
        body.attachments = [{ media_id: mediaId }];
        if (message.media.caption) body.text = message.media.caption;
      } else if (message.text !== undefined && message.text !== '') {
        body.text = message.text;
        // Quick reply options exist only on v1.1's DM send (OAuth 1.0a): without those credentials the text goes alone.
        const oauth1 = message.buttons?.length ? xOAuth1Authorization(account) : null;
        if (oauth1) return sendWithQuickReply(apiUrl, oauth1, message.to, message.text, message.buttons!);
      } else {
        throw new ChannelError('nothing to send: no text and no media', { code: 'empty_message', retryable: false });
      }
      const answer = await xCall<{ data?: { dm_event_id?: string } }>(
        'POST',
        `${apiUrl}/2/dm_conversations/with/${encodeURIComponent(message.to)}/messages`,
        authorize,
        body,
      );
      const id = answer?.data?.dm_event_id;
      if (typeof id !== 'string' || !id) {
        // X accepted the call: retrying could send the DM twice, so this is not retryable.
        throw new ChannelError('X answered the DM without a dm_event_id', { code: 'unexpected_response', retryable: false });
      }
      return { providerMessageId: id };
    },

    async markRead() {
      // X API v2 has no endpoint to mark a received DM read (capabilities.markRead is false); the
      // customer sees the account's read state only when someone reads it in the X app.
    },

    async fetchMedia(account: ChannelAccount, media: InboundMediaRef, maxBytes: number): Promise<FetchedMedia> {
      let url: URL;
      try {
        url = new URL(media.ref);
      } catch {
        throw new ChannelError(`not a media URL: ${media.ref.slice(0, 200)}`, { code: 'invalid_media_ref', retryable: false });
      }
      const trusted = url.origin === apiOrigin || (url.protocol === 'https:' && X_MEDIA_HOSTS.test(url.hostname));
      if (!trusted) {
        throw new ChannelError(`media URL is not X's: ${url.hostname}`, { code: 'untrusted_media_host', retryable: false });
      }
      // DM media (ton.twitter.com, video.twimg.com/dm_video) is private: the GET carries the account's authorization.
      const authorize = xAuthorization(account);
      const { bytes, mimeType } = await downloadLimited(url.href, { headers: { authorization: authorize('GET', url.href) } }, maxBytes);
      return {
        bytes,
        mimeType: media.mimeType && mimeType === 'application/octet-stream' ? media.mimeType : mimeType,
        fileName: media.fileName,
      };
    },

    /** The Account Activity webhook and the DM account's subscription (api.ts registerXWebhook). */
    registerWebhook: (account, url) => registerXWebhook(apiUrl, account, url),

    async testConnection(account: ChannelAccount): Promise<{ name: string }> {
      const answer = await xCall<{ data?: { id?: string; name?: string; username?: string } }>(
        'GET',
        `${apiUrl}/2/users/me`,
        xAuthorization(account),
      );
      const user = answer?.data;
      if (!user?.id) throw new ChannelError('X answered /2/users/me without a user', { code: 'unexpected_response', retryable: true });
      if (user.id !== account.externalAccountId) {
        // The webhooks' for_user_id would never match: say so now rather than refuse every event later.
        throw new ChannelError(
          `these credentials are X user ${user.id} (@${user.username ?? '?'}), not the account's user id ${account.externalAccountId}`,
          { code: 'account_mismatch', retryable: false },
        );
      }
      return { name: user.username ? `${user.name ?? user.username} (@${user.username})` : (user.name ?? user.id) };
    },
  };
}

/**
 * A DM with a quick reply (type options: up to 20, labels of 36 characters, metadata of 1,000),
 * through `POST /1.1/direct_messages/events/new.json`: X API v2's DM send has no quick replies. The
 * customer's pick comes back in the Account Activity webhook as message_data.quick_reply_response.
 */
async function sendWithQuickReply(
  apiUrl: string,
  authorize: ReturnType<typeof xAuthorization>,
  to: string,
  text: string,
  buttons: NonNullable<OutboundMessage['buttons']>,
): Promise<SendResult> {
  const options = fitButtons(buttons, X_CAPABILITIES.buttons!).map((button) => ({ label: button.title, metadata: button.payload }));
  const answer = await xCall<{ event?: { id?: string } }>('POST', `${apiUrl}/1.1/direct_messages/events/new.json`, authorize, {
    event: {
      type: 'message_create',
      message_create: { target: { recipient_id: to }, message_data: { text, quick_reply: { type: 'options', options } } },
    },
  });
  const id = answer?.event?.id;
  if (typeof id !== 'string' || !id) {
    throw new ChannelError('X answered the DM without an event id', { code: 'unexpected_response', retryable: false });
  }
  return { providerMessageId: id };
}
