import { TEMPLATE_MEDIA_LIMITS, type AttachmentKind, type MessageView, type TemplateMessageInput } from '@centralita/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import type { Principal } from '../auth/principal';
import { ChannelAdaptersService } from '../channels/channel-adapters.service';
import { TemplateMessageDto } from '../conversations/conversations.dto';
import { DeskService } from '../conversations/desk.service';
import { MessagesService, type NewAttachment } from '../conversations/messages.service';
import { TemplateSendService } from '../conversations/template-send.service';
import { REALTIME_CONFIG, type RealtimeConfig } from '../machine-host/realtime-config';
import type { ConversationRow } from '../machine-host/views';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { VisitorTokenService, type VisitorIdentity } from '../realtime/visitor-token.service';
import { AttachmentStoreService, type StoredAttachment } from './attachment-store.service';

/** One uploaded file as the multipart parser hands it over. */
export interface UploadedPart {
  buffer: Buffer;
  originalname: string;
  mimetype: string;
  size: number;
}

export interface UploadFields {
  caption?: string;
  clientMessageId?: string;
}

/**
 * Uploads become messages: the file is checked and stored first, then the message that carries it
 * (caption as its text, possibly empty) goes through the usual send path, so an agent's upload to a
 * messaging customer is `pending` for the worker and obeys the reply window and opt-out like text.
 * A file the message did not record (refused, or a resend of a stored client id) is removed.
 */
@Injectable()
export class AttachmentsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: AttachmentStoreService,
    private readonly desk: DeskService,
    private readonly messages: MessagesService,
    private readonly adapters: ChannelAdaptersService,
    private readonly tokens: VisitorTokenService,
    private readonly limiter: RateLimiterService,
    @Inject(REALTIME_CONFIG) private readonly config: RealtimeConfig,
    private readonly templateSends: TemplateSendService,
  ) {}

  /**
   * POST /api/conversations/:id/template-messages/media: a template with a media header whose file
   * the agent uploads (multipart "file" and "template", the TemplateMessageInput as JSON). The file
   * is checked against the header's types and size (TEMPLATE_MEDIA_LIMITS, as campaigns check
   * theirs), kept in the file store as the message's attachment, and uploaded to the provider by
   * the worker when it sends.
   */
  async uploadTemplateHeader(
    principal: Principal,
    conversationId: string,
    file: UploadedPart | undefined,
    fields: { template?: string },
  ): Promise<MessageView> {
    const input = await templateInput(fields.template);
    const { template } = await this.templateSends.prepare(principal, conversationId, input);
    const format = TemplateSendService.mediaFormatOf(template);
    if (!format) {
      const message = `Template ${template.name} has no image, video or document header: send it without a file`;
      throw new AppException('validation', { message, data: { fields: { file: [message] } } });
    }
    const limits = TEMPLATE_MEDIA_LIMITS[format];
    const kind = format.toLowerCase() as AttachmentKind;
    const typeProblem = (mimeType: string) =>
      `${kind === 'image' ? 'an' : 'a'} ${kind} header must be ${limits.mimeTypes.join(' or ')} (not ${mimeType})`;
    const part = this.part(file);
    // The declared type first (a clear 400 on the field), then the content itself when it is stored.
    const declared = part.mimeType.split(';')[0].trim().toLowerCase();
    if (!limits.mimeTypes.includes(declared)) {
      const message = typeProblem(declared || 'no type');
      throw new AppException('validation', { message, data: { fields: { file: [message] } } });
    }
    if (part.bytes.length > limits.maxBytes) {
      throw new AppException('payload_too_large', {
        message: `${kind === 'image' ? 'an' : 'a'} ${kind} header is at most ${limits.maxBytes / 1024 / 1024} MB`,
        data: { fields: { file: ['too large'] } },
      });
    }
    const attachment = await this.store.store({
      tenantId: principal.clientId,
      ...part,
      limit: (found, mimeType) =>
        found === kind && limits.mimeTypes.includes(mimeType) ? { maxBytes: limits.maxBytes } : typeProblem(mimeType),
    });
    return this.recorded(attachment, () => this.templateSends.send(principal, conversationId, input, attachment));
  }

  /** POST /api/conversations/:id/attachments */
  async uploadByAgent(
    principal: Principal,
    conversationId: string,
    file: UploadedPart | undefined,
    fields: UploadFields,
  ): Promise<MessageView> {
    const conversation = await this.desk.visible(principal, conversationId);
    // Checked again under the lock when the message is stored; here so a refused upload stores no bytes.
    DeskService.requireHandler(principal, conversation);
    const attachment = await this.store.store({
      tenantId: principal.clientId,
      ...this.part(file),
      limit: this.channelLimit(conversation),
    });
    return this.recorded(attachment, () =>
      this.desk.send(principal, conversationId, {
        text: fields.caption ?? '',
        clientMessageId: fields.clientMessageId,
        attachments: [attachment],
      }),
    );
  }

  /** POST /api/webchat/conversation/attachments: the visitor's file, a customer message of their conversation. */
  async uploadByVisitor(visitor: VisitorIdentity, file: UploadedPart | undefined, fields: UploadFields): Promise<MessageView> {
    await this.limiter.consume('webchat-message', visitor.conversationId, {
      limit: this.config.webchatMessagesPerConversationPerMinute,
      windowSeconds: 60,
    });
    const conversation = await this.visitorConversation(visitor);
    MessagesService.requireOpen(conversation);
    const attachment = await this.store.store({ tenantId: visitor.tenantId, ...this.part(file) });
    return this.recorded(attachment, async () => {
      const { message } = await this.messages.send(
        {
          conversationId: visitor.conversationId,
          tenantId: visitor.tenantId,
          sender: { kind: 'customer', id: visitor.visitorId },
          text: fields.caption ?? '',
          clientMessageId: fields.clientMessageId,
          attachments: [attachment],
        },
        (row) => {
          this.tokens.assertOpen(row);
          MessagesService.requireOpen(row);
        },
      );
      return message;
    });
  }

  /** GET /api/attachments/:id: the tenant's, in a conversation the caller may see (404 otherwise). */
  async forStaff(principal: Principal, id: string): Promise<StoredAttachment> {
    const attachment = await this.store.find(principal.clientId, id);
    await this.desk.visible(principal, attachment.conversation_id);
    return attachment;
  }

  /** GET /api/webchat/conversation/attachments/:id: only the visitor's own conversation's (404 otherwise). */
  async forVisitor(visitor: VisitorIdentity, id: string): Promise<StoredAttachment> {
    await this.visitorConversation(visitor);
    const attachment = await this.store.find(visitor.tenantId, id);
    if (attachment.conversation_id !== visitor.conversationId) throw AppException.notFound();
    return attachment;
  }

  private part(file: UploadedPart | undefined): { fileName: string; mimeType: string; bytes: Buffer } {
    if (!file) {
      throw new AppException('validation', {
        message: 'Send one file as the multipart field "file"',
        data: { fields: { file: ['required'] } },
      });
    }
    return { fileName: file.originalname, mimeType: file.mimetype, bytes: file.buffer };
  }

  /** What the conversation's channel takes, as its adapter's capabilities say (web chat: the platform's limit only). */
  private channelLimit(
    conversation: ConversationRow,
  ): ((kind: AttachmentKind, mimeType: string) => { maxBytes: number } | string) | undefined {
    if (conversation.channel === 'webchat') return undefined;
    const adapter = this.adapters.usable(conversation.channel);
    return (kind, mimeType) => {
      const accepted = adapter?.capabilities.attachments[kind];
      if (!accepted) return `${conversation.channel} does not take ${kind} files`;
      if (accepted.mimeTypes.length && !accepted.mimeTypes.includes(mimeType)) {
        return `${conversation.channel} takes ${kind} files of types ${accepted.mimeTypes.join(', ')} (not ${mimeType})`;
      }
      return { maxBytes: accepted.maxBytes };
    };
  }

  private async recorded(attachment: NewAttachment, send: () => Promise<MessageView>): Promise<MessageView> {
    let message: MessageView;
    try {
      message = await send();
    } catch (error) {
      await this.store.discard([attachment.fileId]);
      throw error;
    }
    // A resent client id answers the message stored the first time, which does not hold this copy.
    const [kept] = (await this.dataSource.query(`SELECT 1 FROM message_attachments WHERE file_id = $1`, [attachment.fileId])) as unknown[];
    if (!kept) await this.store.discard([attachment.fileId]);
    return message;
  }

  private async visitorConversation(visitor: VisitorIdentity): Promise<ConversationRow> {
    const [row] = (await this.dataSource.query(`SELECT * FROM conversations WHERE id = $1 AND tenant_id = $2`, [
      visitor.conversationId,
      visitor.tenantId,
    ])) as ConversationRow[];
    if (!row) throw AppException.notFound();
    this.tokens.assertOpen(row);
    return row;
  }
}

/** The "template" field of a template upload: TemplateMessageInput as JSON, checked as the JSON endpoint checks it. */
async function templateInput(raw: string | undefined): Promise<TemplateMessageInput> {
  const refuse = (message: string, field = 'template') =>
    new AppException('validation', { message, data: { fields: { [field]: [message] } } });
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw ?? '');
  } catch {
    throw refuse('template must be the template message as JSON ({name, language, bodyParameters, headerParameters?})');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw refuse('template must be a JSON object');
  if ('headerMedia' in parsed) throw refuse('headerMedia is the uploaded file here: leave it out of template', 'headerMedia');
  const dto = plainToInstance(TemplateMessageDto, parsed);
  const [error] = await validate(dto);
  if (error) {
    const message = Object.values(error.constraints ?? {})[0] ?? `${error.property} is invalid`;
    throw refuse(message, error.property);
  }
  if (!Array.isArray(dto.bodyParameters)) throw refuse('bodyParameters must be a list of texts', 'bodyParameters');
  return dto;
}
