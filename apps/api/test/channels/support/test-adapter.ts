import { createHmac } from 'node:crypto';
import {
  ChannelError,
  constantTimeEqual,
  WebhookPayloadError,
  type ChannelAdapter,
  type ChannelRegistry,
  type InboundEvent,
  type MessagingChannelKind,
  type OutboundMessage,
} from '@centralita/channels';
import type { TestApp } from '../../support/test-app';
import { CHANNEL_REGISTRY } from '../../../src/modules/channels/channel-adapters.service';

/**
 * A provider-neutral adapter for the platform's tests: it signs like Meta (hex HMAC-SHA256 of a
 * secret over the raw body, here in `x-test-signature`), shakes hands like Meta (hub.*), and its
 * body is `{ deliveryId?, events: [...] }` with the platform's own event shapes (dates as ISO).
 * A secret of 'bad' makes testConnection fail as a provider refusing a token does.
 */
export const TEST_SECRET_NAMES = ['appSecret'] as const;

export interface TestWebhookBody {
  deliveryId?: string;
  events: (
    | {
        type: 'message';
        id: string;
        from: string;
        name?: string;
        text?: string;
        at: string;
        media?: { data: string; mimeType: string; fileName: string }[];
      }
    | { type: 'receipt'; id: string; status: 'sent' | 'delivered' | 'read' | 'failed'; at: string; contact?: string; error?: string }
    | { type: 'typing'; from: string; at: string }
    | { type: 'opt-out' | 'opt-in'; from: string; at: string; reason: 'blocked' | 'marketing' | 'unblocked' }
  )[];
}

export function signTestBody(body: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export function createTestAdapter(kind: MessagingChannelKind): ChannelAdapter & { sent: OutboundMessage[] } {
  const sent: OutboundMessage[] = [];
  return {
    kind,
    sent,
    capabilities: {
      textLimit: 1000,
      attachments: { image: { maxBytes: 1024 * 1024, mimeTypes: ['image/png'] } },
      receipts: { delivered: true, read: true },
      typing: true,
      markRead: false,
      replyWindowHours: null,
      humanAgentTagHours: null,
      templates: false,
    },
    credentials: { secrets: TEST_SECRET_NAMES, settings: ['region'] },
    verifyWebhook(request, account) {
      if (request.method === 'GET') {
        const { 'hub.mode': mode, 'hub.verify_token': token, 'hub.challenge': challenge } = request.query;
        if (mode === 'subscribe' && token && challenge && constantTimeEqual(token, account.verifyToken)) {
          return { kind: 'challenge', body: challenge, contentType: 'text/plain' };
        }
        return { kind: 'refused', reason: 'verify token mismatch' };
      }
      const signature = request.headers['x-test-signature'];
      if (!signature) return { kind: 'refused', reason: 'missing signature' };
      return constantTimeEqual(signature, signTestBody(request.rawBody, account.secrets.appSecret ?? ''))
        ? { kind: 'verified' }
        : { kind: 'refused', reason: 'signature mismatch' };
    },
    parseWebhook(rawBody) {
      let body: TestWebhookBody;
      try {
        body = JSON.parse(rawBody.toString('utf8')) as TestWebhookBody;
      } catch {
        throw new WebhookPayloadError('body is not JSON');
      }
      if (!body || !Array.isArray(body.events)) throw new WebhookPayloadError('events must be a list');
      return body.events.map((event): InboundEvent => {
        const at = new Date(event.at);
        switch (event.type) {
          case 'message':
            return {
              type: 'message',
              providerMessageId: event.id,
              contact: { externalId: event.from, name: event.name },
              at,
              text: event.text,
              media: event.media?.map((media) => ({ kind: 'image', ref: media.data, mimeType: media.mimeType, fileName: media.fileName })),
            };
          case 'receipt':
            return {
              type: 'receipt',
              providerMessageId: event.id,
              status: event.status,
              at,
              contactExternalId: event.contact,
              error: event.error ? { code: 'test', message: event.error } : undefined,
            };
          case 'typing':
            return { type: 'typing', contactExternalId: event.from, at };
          default:
            return { type: event.type, contactExternalId: event.from, at, reason: event.reason };
        }
      });
    },
    deliveryId(rawBody) {
      try {
        return (JSON.parse(rawBody.toString('utf8')) as TestWebhookBody).deliveryId ?? null;
      } catch {
        return null;
      }
    },
    async send(_account, message) {
      sent.push(message);
      return { providerMessageId: `test-${sent.length}` };
    },
    async markRead() {},
    async fetchMedia(_account, media, maxBytes) {
      const bytes = Buffer.from(media.ref, 'base64');
      if (bytes.length > maxBytes) throw new ChannelError('media too large', { code: 'media_too_large', retryable: false });
      return { bytes, mimeType: media.mimeType ?? 'application/octet-stream', fileName: media.fileName };
    },
    async testConnection(account) {
      if (account.secrets.appSecret === 'bad') {
        throw new ChannelError('Error validating access token: Session has expired', { code: '190', retryable: false, status: 400 });
      }
      return { name: `Test account ${account.externalAccountId}` };
    },
  };
}

/** Puts the test adapter in place of the kind's adapter in one API process (the CHANNEL_REGISTRY token's map). */
export function installTestAdapter(t: TestApp, kind: MessagingChannelKind): ChannelAdapter {
  const adapter = createTestAdapter(kind);
  (t.app.get<ChannelRegistry>(CHANNEL_REGISTRY) as Map<MessagingChannelKind, ChannelAdapter>).set(kind, adapter);
  return adapter;
}
