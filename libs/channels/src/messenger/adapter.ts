import {
  ChannelError,
  type ChannelAccount,
  type ChannelAdapter,
  type ChannelEndpoints,
  type FetchedMedia,
  type InboundMediaRef,
  type OutboundMessage,
  type SendContext,
  type SendResult,
  type WebhookRequest,
  type WebhookVerdict,
} from '../adapter';
import { fitButtons } from '../buttons';
import { downloadLimited } from '../http';
import { constantTimeEqual, verifyMetaSignature } from '../meta/signature';
import { INSTAGRAM_CAPABILITIES, MESSENGER_CAPABILITIES } from './capabilities';
import { graphRequest } from './graph';
import { parseMessagingWebhook } from './parse';
import type { AttachmentUploadResponse, MessengerAttachmentType, SendApiBody, SendApiResponse } from './payload';

export type MetaMessagingKind = 'facebook' | 'instagram';

/** A customer's public profile as Meta gives it to the account they wrote to. */
export interface MessagingProfile {
  name?: string;
  username?: string;
}

/**
 * The Messenger Platform adapter, one implementation for Facebook Messenger and Instagram
 * messaging (the same Send API, webhooks and errors). Beyond ChannelAdapter it offers `profile`:
 * webhooks carry only the customer's page-scoped id, so parsing stays pure and leaves the name
 * undefined; the core may call `profile` once per new contact to show a name.
 */
export interface MetaMessagingAdapter extends ChannelAdapter {
  readonly kind: MetaMessagingKind;
  profile(account: ChannelAccount, contactExternalId: string): Promise<MessagingProfile>;
}

const ATTACHMENT_TYPES: Record<string, MessengerAttachmentType> = { image: 'image', audio: 'audio', video: 'video', document: 'file' };

export function createMessengerAdapter(endpoints: ChannelEndpoints): MetaMessagingAdapter {
  return createMetaMessagingAdapter('facebook', endpoints);
}

export function createInstagramAdapter(endpoints: ChannelEndpoints): MetaMessagingAdapter {
  return createMetaMessagingAdapter('instagram', endpoints);
}

/**
 * Accounts:
 * - facebook: `externalAccountId` is the Page id; secrets `accessToken` (a Page access token with
 *   pages_messaging) and `appSecret` (the Meta app's secret, which signs webhooks).
 * - instagram: `externalAccountId` is the Instagram professional account id (webhooks' entry.id);
 *   setting `pageId` is the Facebook Page linked to it, whose Page access token (`accessToken`,
 *   with instagram_manage_messages) sends. This is the Messenger Platform's Instagram API on
 *   graph.facebook.com: unlike the Instagram-Login API (graph.instagram.com, media by public URL
 *   only) it has the Attachment Upload API, and the platform's files have no public URL.
 */
export function createMetaMessagingAdapter(kind: MetaMessagingKind, endpoints: ChannelEndpoints): MetaMessagingAdapter {
  const capabilities = kind === 'facebook' ? MESSENGER_CAPABILITIES : INSTAGRAM_CAPABILITIES;
  const webhookObject = kind === 'facebook' ? 'page' : 'instagram';
  const graphUrl = (path: string) => `${endpoints.metaGraphUrl}/${endpoints.metaGraphVersion}/${path}`;

  function tokenOf(account: ChannelAccount): string {
    const token = account.secrets.accessToken;
    if (!token) throw new ChannelError('The account has no access token', { code: 'not_configured', retryable: false });
    return token;
  }

  /** The Graph node that sends: the Page itself (`me` with a Page token) or, for Instagram, the linked Page. */
  function senderNode(account: ChannelAccount): string {
    if (kind === 'facebook') return 'me';
    const pageId = account.settings.pageId;
    if (!pageId || !/^\d+$/.test(pageId)) {
      throw new ChannelError('The Instagram account has no linked Facebook Page id (setting pageId)', {
        code: 'not_configured',
        retryable: false,
      });
    }
    return pageId;
  }

  function messagingType(message: OutboundMessage): Pick<SendApiBody, 'messaging_type' | 'tag'> {
    // Outside the 24-hour window a human agent's reply may go out for 7 days with HUMAN_AGENT,
    // when the app has that permission; the core decides, Meta refuses (code 10) when it does not apply.
    return message.humanAgentTag ? { messaging_type: 'MESSAGE_TAG', tag: 'HUMAN_AGENT' } : { messaging_type: 'RESPONSE' };
  }

  /** POST /{node}/messages: a message, or a sender action (which Meta answers without a message id). */
  function postMessages(account: ChannelAccount, body: SendApiBody): Promise<Partial<SendApiResponse> | null> {
    return graphRequest<Partial<SendApiResponse> | null>(graphUrl(`${senderNode(account)}/messages`), tokenOf(account), {
      method: 'POST',
      json: body,
    });
  }

  async function sendApi(account: ChannelAccount, body: SendApiBody): Promise<SendApiResponse> {
    const response = await postMessages(account, body);
    if (!response || typeof response.message_id !== 'string' || !response.message_id) {
      throw new ChannelError('Meta accepted the message without a message id', { code: 'bad_response', retryable: false });
    }
    return { recipient_id: response.recipient_id ?? body.recipient.id, message_id: response.message_id };
  }

  function checkText(text: string, what: string): void {
    if (!text.trim()) throw new ChannelError(`The ${what} is empty`, { code: 'empty_text', retryable: false });
    const length = [...text].length;
    if (length > capabilities.textLimit) {
      throw new ChannelError(
        `The ${what} has ${length} characters; ${kind === 'facebook' ? 'Messenger' : 'Instagram'} takes at most ${capabilities.textLimit}`,
        {
          code: 'text_too_long',
          retryable: false,
        },
      );
    }
  }

  /** Uploads the file once (Attachment Upload API, multipart) and answers its reusable attachment id. */
  async function upload(
    account: ChannelAccount,
    media: NonNullable<OutboundMessage['media']>,
  ): Promise<{ type: MessengerAttachmentType; attachmentId: string }> {
    const limits = capabilities.attachments[media.kind];
    const type = ATTACHMENT_TYPES[media.kind];
    if (!limits || !type)
      throw new ChannelError(`${media.kind} attachments cannot be sent on ${kind}`, { code: 'media_unsupported', retryable: false });
    const mimeType = media.mimeType.split(';')[0].trim().toLowerCase();
    if (!limits.mimeTypes.includes(mimeType)) {
      throw new ChannelError(`${mimeType} is not accepted for ${media.kind} on ${kind} (accepted: ${limits.mimeTypes.join(', ')})`, {
        code: 'media_unsupported',
        retryable: false,
      });
    }
    if (media.bytes.length > limits.maxBytes) {
      throw new ChannelError(`The ${media.kind} is ${media.bytes.length} bytes; ${kind} takes at most ${limits.maxBytes}`, {
        code: 'media_too_large',
        retryable: false,
      });
    }
    const form = new FormData();
    if (kind === 'instagram') form.set('platform', 'instagram');
    form.set('message', JSON.stringify({ attachment: { type, payload: { is_reusable: true } } }));
    form.set('filedata', new Blob([new Uint8Array(media.bytes)], { type: mimeType }), media.fileName || 'attachment');
    const response = await graphRequest<AttachmentUploadResponse>(
      graphUrl(`${senderNode(account)}/message_attachments`),
      tokenOf(account),
      { method: 'POST', form },
    );
    if (!response || typeof response.attachment_id !== 'string') {
      throw new ChannelError('Meta accepted the upload without an attachment id', { code: 'bad_response', retryable: false });
    }
    return { type, attachmentId: response.attachment_id };
  }

  return {
    kind,
    capabilities,
    credentials: { secrets: ['accessToken', 'appSecret'], settings: kind === 'instagram' ? ['pageId'] : [] },

    verifyWebhook(request: WebhookRequest, account: ChannelAccount): WebhookVerdict {
      try {
        if (request.method === 'GET') {
          // Meta's subscription handshake: echo hub.challenge when hub.verify_token is the account's.
          const { 'hub.mode': mode, 'hub.verify_token': token, 'hub.challenge': challenge } = request.query;
          if (mode !== 'subscribe' || typeof challenge !== 'string' || !challenge)
            return { kind: 'refused', reason: 'not a Meta subscription handshake' };
          if (!account.verifyToken || typeof token !== 'string' || !constantTimeEqual(token, account.verifyToken)) {
            return { kind: 'refused', reason: 'hub.verify_token does not match' };
          }
          return { kind: 'challenge', body: challenge, contentType: 'text/plain' };
        }
        const appSecret = account.secrets.appSecret;
        if (!appSecret) return { kind: 'refused', reason: 'the account has no app secret' };
        const header = request.headers['x-hub-signature-256'];
        if (!header) return { kind: 'refused', reason: 'missing X-Hub-Signature-256' };
        return verifyMetaSignature(appSecret, request.rawBody, header)
          ? { kind: 'verified' }
          : { kind: 'refused', reason: 'X-Hub-Signature-256 does not match' };
      } catch {
        return { kind: 'refused', reason: 'unreadable webhook request' };
      }
    },

    parseWebhook(rawBody, account) {
      return parseMessagingWebhook(rawBody, account, webhookObject);
    },

    deliveryId() {
      // Meta gives a webhook delivery no id of its own (and retries re-send the same bytes): the core hashes the body.
      return null;
    },

    async send(account: ChannelAccount, message: OutboundMessage, _context: SendContext): Promise<SendResult> {
      // The Send API has no idempotency key; the worker's jobId and stored provider id keep one send per message.
      const contents = [message.text !== undefined, message.media !== undefined, message.template !== undefined].filter(Boolean).length;
      if (contents !== 1)
        throw new ChannelError('A message carries exactly one of text, media or template', { code: 'invalid_message', retryable: false });
      if (message.template)
        throw new ChannelError(`${kind} has no provider-approved templates`, { code: 'templates_unsupported', retryable: false });
      if (!message.to) throw new ChannelError('The message has no recipient', { code: 'invalid_recipient', retryable: false });
      const recipient = { id: message.to };

      if (message.text !== undefined) {
        checkText(message.text, 'message');
        // Reply buttons are quick replies above the composer; a tap comes back as a message with quick_reply.payload.
        const quickReplies = message.buttons?.length
          ? fitButtons(message.buttons, capabilities.buttons!).map((button) => ({
              content_type: 'text' as const,
              title: button.title,
              payload: button.payload,
            }))
          : undefined;
        const sent = await sendApi(account, {
          recipient,
          ...messagingType(message),
          message: { text: message.text, ...(quickReplies ? { quick_replies: quickReplies } : {}) },
        });
        return { providerMessageId: sent.message_id };
      }

      const media = message.media!;
      if (media.caption !== undefined) checkText(media.caption, 'caption');
      const { type, attachmentId } = await upload(account, media);
      // Messenger attachments carry no caption: it goes as its own text just before the attachment
      // (after the upload, the step most likely to fail), and the attachment's id is the message's.
      if (media.caption !== undefined) await sendApi(account, { recipient, ...messagingType(message), message: { text: media.caption } });
      const sent = await sendApi(account, {
        recipient,
        ...messagingType(message),
        message: { attachment: { type, payload: { attachment_id: attachmentId } } },
      });
      return { providerMessageId: sent.message_id };
    },

    async markRead(account, { contactExternalId }) {
      // Meta marks the whole thread seen; the message id is not part of the call.
      await postMessages(account, { recipient: { id: contactExternalId }, sender_action: 'mark_seen' });
    },

    async fetchMedia(_account, media: InboundMediaRef, maxBytes: number): Promise<FetchedMedia> {
      let url: URL;
      try {
        url = new URL(media.ref);
      } catch {
        throw new ChannelError('The media reference is not a URL', { code: 'invalid_media', retryable: false });
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        throw new ChannelError('The media URL is not http(s)', { code: 'invalid_media', retryable: false });
      // Meta's CDN URLs are signed and expire: no token is sent (it would leak to the CDN), and an
      // expired URL (403) is permanent: the media cannot be fetched any more.
      const { bytes, mimeType } = await downloadLimited(url.toString(), {}, maxBytes);
      const fileName = media.fileName ?? fileNameOf(url);
      const type = mimeType === 'application/octet-stream' && media.mimeType ? media.mimeType : mimeType;
      return fileName ? { bytes, mimeType: type, fileName } : { bytes, mimeType: type };
    },

    async testConnection(account) {
      if (kind === 'facebook') {
        const page = await graphRequest<{ id?: string; name?: string }>(graphUrl('me?fields=id,name'), tokenOf(account), { method: 'GET' });
        if (!page?.id)
          throw new ChannelError('Meta did not say which Page the token belongs to', { code: 'bad_response', retryable: false });
        if (page.id !== account.externalAccountId) {
          throw new ChannelError(
            `The access token belongs to the Page ${page.name ?? page.id} (${page.id}), not ${account.externalAccountId}`,
            {
              code: 'account_mismatch',
              retryable: false,
            },
          );
        }
        return { name: page.name ?? page.id };
      }
      senderNode(account); // an Instagram account cannot send without its Page: say so here, not at the first reply.
      const profile = await graphRequest<{ id?: string; username?: string; name?: string }>(
        graphUrl(`${encodeURIComponent(account.externalAccountId)}?fields=id,username,name`),
        tokenOf(account),
        { method: 'GET' },
      );
      if (!profile?.id) throw new ChannelError('Meta did not answer the Instagram account', { code: 'bad_response', retryable: false });
      return { name: profile.username ? `@${profile.username}` : (profile.name ?? profile.id) };
    },

    async profile(account, contactExternalId) {
      if (!/^\d+$/.test(contactExternalId))
        throw new ChannelError('Not a Meta scoped user id', { code: 'invalid_recipient', retryable: false });
      if (kind === 'facebook') {
        const person = await graphRequest<{ first_name?: string; last_name?: string }>(
          graphUrl(`${contactExternalId}?fields=first_name,last_name`),
          tokenOf(account),
          {
            method: 'GET',
          },
        );
        const name = [person?.first_name, person?.last_name].filter((part) => typeof part === 'string' && part).join(' ');
        return name ? { name } : {};
      }
      const person = await graphRequest<{ name?: string; username?: string }>(
        graphUrl(`${contactExternalId}?fields=name,username`),
        tokenOf(account),
        { method: 'GET' },
      );
      return {
        ...(typeof person?.name === 'string' && person.name ? { name: person.name } : {}),
        ...(typeof person?.username === 'string' && person.username ? { username: person.username } : {}),
      };
    },
  };
}

/** The last path segment when it looks like a file name (Messenger file URLs end with it). */
function fileNameOf(url: URL): string | undefined {
  const last = url.pathname.split('/').pop() ?? '';
  let name: string;
  try {
    name = decodeURIComponent(last);
  } catch {
    return undefined;
  }
  return /^[^/\\\0]{1,200}\.[A-Za-z0-9]{1,8}$/.test(name) ? name : undefined;
}
