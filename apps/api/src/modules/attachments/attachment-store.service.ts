import { once } from 'node:events';
import type { AttachmentKind } from '@centralita/contracts';
import type { FileStore } from '@centralita/contracts/server';
import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import type { NewAttachment } from '../conversations/messages.service';
import { FILE_STORE } from '../files/files.module';
import { attachmentMaxBytes, checkContent, sanitiseFileName } from './attachment-content';

/** An attachment as downloads need it. */
export interface StoredAttachment {
  id: string;
  tenant_id: string;
  conversation_id: string;
  file_id: string;
  kind: AttachmentKind;
  file_name: string;
  mime_type: string;
  size: number;
}

/**
 * Files of messages in the shared file store: content-checked (magic bytes against the declared
 * type), size-limited and named safely before anything is stored; the message then records them
 * (MessagesService `attachments`) in its own transaction. Used by uploads (agents, web-chat
 * visitors) and by B1's inbound processing for customers' media (`storeInboundFile`).
 */
@Injectable()
export class AttachmentStoreService {
  readonly maxBytes = attachmentMaxBytes();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(FILE_STORE) private readonly files: FileStore,
  ) {}

  /**
   * Checks and stores one file; answers what the message records. `limit` is the channel's own
   * (kinds and sizes it takes) where the file is for a messaging customer. 400 for content that is
   * not what it says, 413 for too many bytes.
   */
  async store(input: {
    tenantId: string;
    fileName: string;
    mimeType: string;
    bytes: Buffer;
    limit?: (kind: AttachmentKind, mimeType: string) => { maxBytes: number } | string;
  }): Promise<NewAttachment> {
    if (input.bytes.length === 0) throw new AppException('validation', { message: 'The file is empty' });
    if (input.bytes.length > this.maxBytes) {
      throw new AppException('payload_too_large', { message: `The file is larger than ${this.maxBytes} bytes` });
    }
    const content = checkContent(input.bytes, input.mimeType);
    if (!content.ok) throw new AppException('validation', { message: content.problem, data: { fields: { file: [content.problem] } } });
    const channelLimit = input.limit?.(content.kind, content.mimeType);
    if (typeof channelLimit === 'string') throw new AppException('validation', { message: channelLimit });
    if (channelLimit && input.bytes.length > channelLimit.maxBytes) {
      throw new AppException('payload_too_large', {
        message: `This channel takes ${content.kind} files of at most ${channelLimit.maxBytes} bytes`,
        status: HttpStatus.PAYLOAD_TOO_LARGE,
      });
    }
    const upload = await this.files.create(input.tenantId, 'attachment');
    try {
      upload.stream.end(input.bytes);
      await once(upload.stream, 'finish');
    } catch (error) {
      await this.files.remove(upload.id);
      throw error;
    }
    return {
      fileId: upload.id,
      kind: content.kind,
      fileName: sanitiseFileName(input.fileName, `${content.kind}`),
      mimeType: content.mimeType,
      size: input.bytes.length,
    };
  }

  /** A customer's medium fetched from the provider (B1's INBOUND_MEDIA_STORE): checked and stored as any upload. */
  storeInboundFile(input: {
    tenantId: string;
    kind: AttachmentKind;
    fileName: string;
    mimeType: string;
    bytes: Buffer;
  }): Promise<NewAttachment> {
    return this.store(input);
  }

  /** Removes files a refused or repeated message did not record. */
  async discard(fileIds: string[]): Promise<void> {
    await Promise.all(fileIds.map((id) => this.files.remove(id)));
  }

  /** An attachment of the tenant (404 otherwise), with its message's conversation. */
  async find(tenantId: string, id: string): Promise<StoredAttachment> {
    const [row] = (await this.dataSource.query(
      `SELECT a.id, a.tenant_id, m.conversation_id, a.file_id, a.kind, a.file_name, a.mime_type, a.size
       FROM message_attachments a JOIN messages m ON m.id = a.message_id WHERE a.id = $1 AND a.tenant_id = $2`,
      [id, tenantId],
    )) as StoredAttachment[];
    if (!row) throw AppException.notFound();
    return row;
  }

  async open(attachment: StoredAttachment): Promise<{ stream: Readable; byteSize: number }> {
    const file = await this.files.open(attachment.tenant_id, attachment.file_id);
    if (!file) throw AppException.notFound();
    return file;
  }
}
