/**
 * The WhatsApp Cloud API adapter (Meta Graph API): `{metaGraphUrl}/{metaGraphVersion}/…` with
 * `Authorization: Bearer <accessToken>`.
 *
 * Account: `externalAccountId` is the WhatsApp phone-number id; `settings.wabaId` the WhatsApp
 * Business Account id (templates live there); `secrets.accessToken` a system-user token with
 * whatsapp_business_messaging and whatsapp_business_management; `secrets.appSecret` the Meta app's
 * secret, which signs webhooks; `verifyToken` the platform's token for Meta's GET handshake;
 * `settings.appId` the Meta app id (template samples go up through its Resumable Upload API);
 * `settings.testNumbers` the internal numbers (comma-separated) a template's test send may reach.
 */
import {
  ChannelError,
  type ChannelAccount,
  type ChannelAdapter,
  type ChannelEndpoints,
  type FetchedMedia,
  type InboundMediaRef,
  type OutboundMessage,
  type SendResult,
  type TemplateDefinition,
  type TemplateInfo,
  type TemplateSend,
  type TemplateStatusInfo,
  type WebhookRequest,
  type WebhookVerdict,
} from '../adapter';
import { TEMPLATE_MEDIA_FORMATS, headerFormatOf, namedPlaceholders, templateParameterNames } from '@centralita/contracts';
import { downloadLimited } from '../http';
import { constantTimeEqual, verifyMetaSignature } from '../meta/signature';
import { fitButtons } from '../buttons';
import { WHATSAPP_BUTTON_BODY_MAX, WHATSAPP_CAPABILITIES, WHATSAPP_LIST_BUTTON_LABEL, WHATSAPP_REPLY_BUTTONS_MAX } from './capabilities';
import { graphRequest } from './graph';
import { parseWhatsAppWebhook } from './webhook';

/** Meta's handshake challenge is a number; anything else is not echoed (no reflected content). */
const CHALLENGE_PATTERN = /^[A-Za-z0-9._-]{1,200}$/;
/** A phone number as the Cloud API's `to` takes it; anything else is a business-scoped user id (`recipient`). */
const PHONE_NUMBER_PATTERN = /^\+?\d{5,20}$/;
/** Pages of templates read at most (Meta pages by 25 by default; 100 asked per page). */
const TEMPLATE_PAGES = 10;

interface SendResponse {
  messages?: { id?: string }[];
}
interface MediaUrlResponse {
  url?: string;
  mime_type?: string;
  file_size?: number | string;
}
interface TemplatesResponse {
  data?: {
    name?: string;
    language?: string;
    status?: string;
    category?: string;
    components?: { type?: string; text?: string; format?: string; example?: Record<string, unknown> }[];
  }[];
  paging?: { next?: string };
}
interface TemplateStatusesResponse {
  data?: { id?: string; name?: string; language?: string; status?: string; category?: string; rejected_reason?: string }[];
  paging?: { next?: string };
}

export function createWhatsAppAdapter(endpoints: ChannelEndpoints): ChannelAdapter {
  const graph = `${endpoints.metaGraphUrl.replace(/\/+$/, '')}/${endpoints.metaGraphVersion}`;

  const authorization = (account: ChannelAccount): Record<string, string> => {
    const token = account.secrets.accessToken;
    if (!token) throw new ChannelError('The WhatsApp account has no access token', { code: 'missing_credentials', retryable: false });
    return { Authorization: `Bearer ${token}` };
  };

  const postJson = <T>(account: ChannelAccount, path: string, body: unknown): Promise<T> =>
    graphRequest<T>(`${graph}/${path}`, {
      method: 'POST',
      headers: { ...authorization(account), 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  const getJson = <T>(account: ChannelAccount, url: string): Promise<T> => graphRequest<T>(url, { headers: authorization(account) });

  const wabaOf = (account: ChannelAccount): string => {
    const wabaId = account.settings.wabaId;
    if (!wabaId)
      throw new ChannelError('The WhatsApp account has no business account id (wabaId)', { code: 'missing_settings', retryable: false });
    return wabaId;
  };

  /** Media goes up first (`/{phone-number-id}/media`, multipart) and is then sent by its id. */
  const uploadMedia = async (account: ChannelAccount, media: NonNullable<OutboundMessage['media']>): Promise<string> => {
    const form = new FormData();
    form.append('messaging_product', 'whatsapp');
    form.append('type', media.mimeType);
    form.append('file', new Blob([media.bytes], { type: media.mimeType }), media.fileName);
    const uploaded = await graphRequest<{ id?: string }>(`${graph}/${encodeURIComponent(account.externalAccountId)}/media`, {
      method: 'POST',
      headers: authorization(account),
      body: form,
    });
    if (!uploaded?.id) throw new ChannelError('WhatsApp answered the upload without a media id', { code: 'bad_response', retryable: true });
    return uploaded.id;
  };

  const messageBody = async (account: ChannelAccount, message: OutboundMessage): Promise<Record<string, unknown>> => {
    const parts = [message.text !== undefined, message.media !== undefined, message.template !== undefined].filter(Boolean).length;
    if (parts !== 1)
      throw new ChannelError('A message carries exactly one of text, media or template', { code: 'invalid_message', retryable: false });
    const to = message.to.trim();
    // Phone numbers go as `to`; a user Meta knows only by business-scoped user id goes as `recipient`.
    const addressee = PHONE_NUMBER_PATTERN.test(to) ? { to } : { recipient: to };
    const envelope = {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      ...addressee,
      // Meta echoes it in every status webhook of the message, so a status that beats the send's answer is still placed.
      ...(message.callbackData ? { biz_opaque_callback_data: message.callbackData.slice(0, 512) } : {}),
    };
    if (message.text !== undefined) {
      if (!message.text.trim()) throw new ChannelError('The message text is empty', { code: 'invalid_message', retryable: false });
      if ([...message.text].length > WHATSAPP_CAPABILITIES.textLimit) {
        throw new ChannelError(`WhatsApp texts carry at most ${WHATSAPP_CAPABILITIES.textLimit} characters`, {
          code: 'text_too_long',
          retryable: false,
        });
      }
      if (message.buttons?.length) return { ...envelope, type: 'interactive', interactive: interactiveOf(message.text, message.buttons) };
      return { ...envelope, type: 'text', text: { preview_url: false, body: message.text } };
    }
    if (message.template) {
      const { name, language, bodyParameters, headerParameters, parameterNames, headerMedia } = message.template;
      // A NAMED template's parameters each carry their `parameter_name`; positional ones go in order.
      const texts = (values: string[], names: string[] | undefined) =>
        values.map((value, index) => ({ type: 'text', ...(names ? { parameter_name: names[index] } : {}), text: value }));
      const header = headerMedia
        ? [{ type: 'header', parameters: [templateMediaParameter(headerMedia)] }]
        : headerParameters?.length
          ? [{ type: 'header', parameters: texts(headerParameters, parameterNames?.header) }]
          : [];
      const components = [
        ...header,
        ...(bodyParameters.length ? [{ type: 'body', parameters: texts(bodyParameters, parameterNames?.body) }] : []),
      ];
      return {
        ...envelope,
        type: 'template',
        template: { name, language: { code: language }, ...(components.length ? { components } : {}) },
      };
    }
    const media = message.media!;
    const limits = WHATSAPP_CAPABILITIES.attachments[media.kind];
    if (!limits || !limits.mimeTypes.includes(media.mimeType)) {
      throw new ChannelError(`WhatsApp does not accept ${media.mimeType} as ${media.kind}`, { code: 'media_type', retryable: false });
    }
    if (media.bytes.length > limits.maxBytes) {
      throw new ChannelError(`WhatsApp accepts ${media.kind} files up to ${limits.maxBytes} bytes`, {
        code: 'media_too_large',
        retryable: false,
      });
    }
    const id = await uploadMedia(account, media);
    // Audio carries no caption at WhatsApp; documents carry their file name.
    const object: Record<string, string> = { id };
    if (media.caption && media.kind !== 'audio') object.caption = media.caption;
    if (media.kind === 'document') object.filename = media.fileName;
    return { ...envelope, type: media.kind, [media.kind]: object };
  };

  const resolveMediaUrl = async (account: ChannelAccount, mediaId: string): Promise<MediaUrlResponse & { url: string }> => {
    const url = `${graph}/${encodeURIComponent(mediaId)}?phone_number_id=${encodeURIComponent(account.externalAccountId)}`;
    const answer = await getJson<MediaUrlResponse>(account, url);
    if (!answer?.url)
      throw new ChannelError('WhatsApp answered the media without a download URL', { code: 'bad_response', retryable: true });
    return answer as MediaUrlResponse & { url: string };
  };

  return {
    kind: 'whatsapp',
    capabilities: WHATSAPP_CAPABILITIES,
    // appId: the Meta app that uploads template samples; testNumbers: the internal numbers a template's test send may reach.
    credentials: { secrets: ['accessToken', 'appSecret'], settings: ['wabaId', 'appId', 'testNumbers'] },

    verifyWebhook(request: WebhookRequest, account: ChannelAccount): WebhookVerdict {
      try {
        if (request.method === 'GET') {
          const mode = request.query['hub.mode'];
          const token = request.query['hub.verify_token'] ?? '';
          const challenge = request.query['hub.challenge'] ?? '';
          if (mode !== 'subscribe') return { kind: 'refused', reason: 'hub.mode is not subscribe' };
          if (!account.verifyToken || !constantTimeEqual(token, account.verifyToken)) {
            return { kind: 'refused', reason: 'hub.verify_token does not match' };
          }
          if (!CHALLENGE_PATTERN.test(challenge)) return { kind: 'refused', reason: 'hub.challenge is missing or malformed' };
          return { kind: 'challenge', body: challenge, contentType: 'text/plain' };
        }
        const signature = request.headers['x-hub-signature-256'];
        if (!signature) return { kind: 'refused', reason: 'X-Hub-Signature-256 is missing' };
        if (!account.secrets.appSecret) return { kind: 'refused', reason: 'the account has no app secret' };
        return verifyMetaSignature(account.secrets.appSecret, request.rawBody, signature)
          ? { kind: 'verified' }
          : { kind: 'refused', reason: 'X-Hub-Signature-256 does not match the body' };
      } catch {
        return { kind: 'refused', reason: 'the request could not be verified' };
      }
    },

    parseWebhook: (rawBody, account) =>
      parseWhatsAppWebhook(rawBody, account.externalAccountId, { displayPhoneNumber: account.settings.displayPhoneNumber }),

    // Meta's webhooks carry no delivery id (a retry resends the same body): the core hashes the body.
    deliveryId: () => null,

    /**
     * The Cloud API has no idempotency key or header. A retry does not send twice because the core
     * enqueues each platform message once, under the job id `channel-send.<messageId>`, and stores the
     * provider id on success; the remaining gap (Meta accepted, the answer was lost) cannot be closed
     * on Meta's side.
     */
    async send(account, message): Promise<SendResult> {
      const body = await messageBody(account, message);
      const answer = await postJson<SendResponse>(account, `${encodeURIComponent(account.externalAccountId)}/messages`, body);
      const id = answer?.messages?.[0]?.id;
      if (!id) throw new ChannelError('WhatsApp answered the send without a message id', { code: 'bad_response', retryable: false });
      return { providerMessageId: id };
    },

    async markRead(account, input): Promise<void> {
      await postJson(account, `${encodeURIComponent(account.externalAccountId)}/messages`, {
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: input.providerMessageId,
      });
    },

    /**
     * GET /{media-id} answers a download URL that expires after minutes; it is fetched with the same
     * bearer token. When the URL has expired between the two calls (404/401/403), a fresh one is asked once.
     */
    async fetchMedia(account, media: InboundMediaRef, maxBytes): Promise<FetchedMedia> {
      let resolved = await resolveMediaUrl(account, media.ref);
      const announced = Number(resolved.file_size);
      if (Number.isFinite(announced) && announced > maxBytes) {
        throw new ChannelError(`media too large: ${announced} bytes (limit ${maxBytes})`, { code: 'media_too_large', retryable: false });
      }
      let downloaded: { bytes: Buffer; mimeType: string };
      try {
        downloaded = await downloadLimited(resolved.url, { headers: authorization(account) }, maxBytes);
      } catch (error) {
        const status = error instanceof ChannelError ? error.details.status : undefined;
        if (status !== 404 && status !== 401 && status !== 403 && status !== 410) throw error;
        resolved = await resolveMediaUrl(account, media.ref);
        downloaded = await downloadLimited(resolved.url, { headers: authorization(account) }, maxBytes);
      }
      const mimeType = (resolved.mime_type ?? media.mimeType ?? downloaded.mimeType).split(';')[0].trim();
      return { bytes: downloaded.bytes, mimeType, fileName: media.fileName };
    },

    async testConnection(account): Promise<{ name: string }> {
      const phone = await getJson<{ verified_name?: string; display_phone_number?: string }>(
        account,
        `${graph}/${encodeURIComponent(account.externalAccountId)}?fields=verified_name,display_phone_number`,
      );
      const name = [phone?.verified_name, phone?.display_phone_number].filter(Boolean).join(' · ');
      return { name: name || account.externalAccountId };
    },

    /** POST /{waba-id}/message_templates: Meta answers `{id, status, category}` (status PENDING, or APPROVED at once for some utility templates). */
    async createTemplate(account, template: TemplateDefinition): Promise<TemplateStatusInfo> {
      const answer = await postJson<{ id?: string; status?: string; category?: string }>(
        account,
        `${encodeURIComponent(wabaOf(account))}/message_templates`,
        {
          name: template.name,
          language: template.language,
          category: template.category,
          ...(template.parameterFormat === 'NAMED' ? { parameter_format: 'NAMED' } : {}),
          components: template.components,
        },
      );
      if (!answer?.id) throw new ChannelError('WhatsApp answered the template without an id', { code: 'bad_response', retryable: false });
      return {
        providerTemplateId: String(answer.id),
        name: template.name,
        language: template.language,
        status: (answer.status ?? 'PENDING').toUpperCase(),
        category: (answer.category ?? template.category).toUpperCase(),
      };
    },

    /**
     * Meta's Resumable Upload API: POST /{app-id}/uploads (file_name, file_length, file_type) opens a
     * session `upload:…`; POST /{session} with `Authorization: OAuth <token>`, `file_offset: 0` and the
     * bytes answers `{ h }`, the handle a template's media header gives as its example. The app id is
     * the account's setting `appId`.
     */
    async uploadTemplateSample(account, sample): Promise<string> {
      const appId = account.settings.appId;
      if (!appId)
        throw new ChannelError('The WhatsApp account has no Meta app id (appId) for template samples', {
          code: 'missing_settings',
          retryable: false,
        });
      const query = new URLSearchParams({
        file_name: sample.fileName,
        file_length: String(sample.bytes.length),
        file_type: sample.mimeType,
      });
      const session = await graphRequest<{ id?: string }>(`${graph}/${encodeURIComponent(appId)}/uploads?${query.toString()}`, {
        method: 'POST',
        headers: authorization(account),
      });
      if (!session?.id?.startsWith('upload:'))
        throw new ChannelError('WhatsApp answered the upload session without an id', { code: 'bad_response', retryable: false });
      const uploaded = await graphRequest<{ h?: string }>(`${graph}/${session.id}`, {
        method: 'POST',
        headers: { Authorization: `OAuth ${account.secrets.accessToken ?? ''}`, file_offset: '0' },
        body: new Uint8Array(sample.bytes),
      });
      if (!uploaded?.h) throw new ChannelError('WhatsApp answered the upload without a handle', { code: 'bad_response', retryable: false });
      return uploaded.h;
    },

    async uploadMedia(account, media): Promise<string> {
      const limits = WHATSAPP_CAPABILITIES.attachments[media.kind];
      if (!limits || !limits.mimeTypes.includes(media.mimeType) || media.bytes.length > limits.maxBytes) {
        throw new ChannelError(`WhatsApp does not accept this ${media.kind} (${media.mimeType}, ${media.bytes.length} bytes)`, {
          code: 'media_type',
          retryable: false,
        });
      }
      return uploadMedia(account, media);
    },

    async templateStatuses(account): Promise<TemplateStatusInfo[]> {
      const statuses: TemplateStatusInfo[] = [];
      let url: string | undefined =
        `${graph}/${encodeURIComponent(wabaOf(account))}/message_templates?fields=id,name,language,status,category,rejected_reason&limit=100`;
      for (let page = 0; url && page < TEMPLATE_PAGES; page++) {
        const answer: TemplateStatusesResponse = await getJson<TemplateStatusesResponse>(account, url);
        for (const template of answer?.data ?? []) {
          if (!template.id || !template.name || !template.language) continue;
          statuses.push({
            providerTemplateId: String(template.id),
            name: template.name,
            language: template.language,
            status: (template.status ?? 'UNKNOWN').toUpperCase(),
            category: (template.category ?? 'UNKNOWN').toUpperCase(),
            ...(template.rejected_reason && template.rejected_reason !== 'NONE' ? { reason: template.rejected_reason } : {}),
          });
        }
        url = answer?.paging?.next?.startsWith(graph) ? answer.paging.next : undefined;
      }
      return statuses;
    },

    async listTemplates(account): Promise<TemplateInfo[]> {
      const wabaId = account.settings.wabaId;
      if (!wabaId)
        throw new ChannelError('The WhatsApp account has no business account id (wabaId)', { code: 'missing_settings', retryable: false });
      const templates: TemplateInfo[] = [];
      let url: string | undefined =
        `${graph}/${encodeURIComponent(wabaId)}/message_templates?fields=name,language,status,category,components&limit=100`;
      for (let page = 0; url && page < TEMPLATE_PAGES; page++) {
        const answer: TemplatesResponse = await getJson<TemplatesResponse>(account, url);
        for (const template of answer?.data ?? []) {
          // Only approved templates can be sent; pending, rejected and paused ones are not offered.
          if (!template.name || !template.language || template.status !== 'APPROVED') continue;
          // Agents fill the text parameters (header and body, by position or by name) and give an
          // image, video or document header as a link or a file. A location header is not offered:
          // the picker does not ask for one and Meta refuses the send without it (#132012).
          const components = (template.components ?? []) as Record<string, unknown>[];
          const headerFormat = headerFormatOf(components);
          if (headerFormat && headerFormat !== 'TEXT' && !(TEMPLATE_MEDIA_FORMATS as readonly string[]).includes(headerFormat)) continue;
          const header = textHeaderOf(template.components) ?? null;
          const body = template.components?.find((component) => component.type?.toUpperCase() === 'BODY')?.text ?? '';
          const names = templateParameterNames(components);
          const named = names.format === 'NAMED';
          // A named placeholder Meta would not take ({{First Name}}) cannot be filled: not offered.
          if (named && (namedPlaceholders(body).bad || namedPlaceholders(header ?? '').bad)) continue;
          templates.push({
            name: template.name,
            language: template.language,
            status: template.status ?? 'UNKNOWN',
            category: template.category ?? 'UNKNOWN',
            body,
            parameterCount: named ? names.body.length : placeholderCount(body),
            headerText: header,
            headerParameterCount: named ? names.header.length : placeholderCount(header ?? ''),
            parameterFormat: named ? 'NAMED' : 'POSITIONAL',
            headerParameterNames: named ? names.header : [],
            bodyParameterNames: named ? names.body : [],
            parameterExamples: templateExamples(template.components ?? []),
            headerFormat: headerFormat as TemplateInfo['headerFormat'],
          });
        }
        // Paging links are followed only on the configured Graph host (never a URL from elsewhere).
        url = answer?.paging?.next?.startsWith(graph) ? answer.paging.next : undefined;
      }
      return templates;
    },
  };
}

/**
 * The examples Meta approved, by parameter: `body_text_named_params` / `header_text_named_params`
 * ({param_name, example}) for a NAMED template, `body_text` by position ('1', '2'…) for a positional body.
 */
function templateExamples(components: { type?: string; example?: Record<string, unknown> }[]): Record<string, string> {
  const examples: Record<string, string> = {};
  for (const component of components) {
    const example = component.example;
    if (!example) continue;
    for (const key of ['body_text_named_params', 'header_text_named_params']) {
      const list = example[key];
      if (!Array.isArray(list)) continue;
      for (const one of list as { param_name?: unknown; example?: unknown }[]) {
        if (typeof one?.param_name === 'string' && typeof one.example === 'string') examples[one.param_name] ??= one.example;
      }
    }
    // A positional body's examples: body_text is [[v1, v2…]], keyed '1', '2'….
    const positional = component.type?.toUpperCase() === 'BODY' && Array.isArray(example.body_text) ? example.body_text[0] : undefined;
    if (Array.isArray(positional)) {
      positional.forEach((value: unknown, index: number) => {
        if (typeof value === 'string') examples[String(index + 1)] ??= value;
      });
    }
  }
  return examples;
}

/** A template's text header (null when it has none); undefined for a media header, which the desk cannot fill. */
function textHeaderOf(components: { type?: string; text?: string; format?: string }[] | undefined): string | null | undefined {
  const header = components?.find((component) => component.type?.toUpperCase() === 'HEADER');
  if (!header) return null;
  return (header.format ?? 'TEXT').toUpperCase() === 'TEXT' ? (header.text ?? '') : undefined;
}

/** A media header's parameter: `{ type: 'image', image: { link } }` (or `{ id }`); a document carries its file name. */
function templateMediaParameter(media: NonNullable<TemplateSend['headerMedia']>): Record<string, unknown> {
  if (!media.link === !media.id)
    throw new ChannelError('A media header takes exactly one of link or id', { code: 'invalid_message', retryable: false });
  const object: Record<string, string> = media.link ? { link: media.link } : { id: media.id! };
  if (media.kind === 'document' && media.fileName) object.filename = media.fileName;
  return { type: media.kind, [media.kind]: object };
}

/** The number of distinct {{n}} placeholders of a template body. */
export function placeholderCount(body: string): number {
  return new Set([...body.matchAll(/\{\{\s*(\d+)\s*\}\}/g)].map((match) => match[1])).size;
}

/**
 * Reply buttons as WhatsApp's interactive message: up to three as reply buttons under the text
 * (body at most 1024 characters), more (or a longer text) as a list whose rows open from one
 * button. The customer's tap comes back as interactive.button_reply / list_reply with the id.
 */
function interactiveOf(text: string, buttons: NonNullable<OutboundMessage['buttons']>): Record<string, unknown> {
  const fitted = fitButtons(buttons, WHATSAPP_CAPABILITIES.buttons!);
  if (fitted.length <= WHATSAPP_REPLY_BUTTONS_MAX && [...text].length <= WHATSAPP_BUTTON_BODY_MAX) {
    return {
      type: 'button',
      body: { text },
      action: { buttons: fitted.map((button) => ({ type: 'reply', reply: { id: button.payload, title: button.title } })) },
    };
  }
  return {
    type: 'list',
    body: { text },
    action: {
      button: WHATSAPP_LIST_BUTTON_LABEL,
      sections: [{ rows: fitted.map((button) => ({ id: button.payload, title: button.title })) }],
    },
  };
}
