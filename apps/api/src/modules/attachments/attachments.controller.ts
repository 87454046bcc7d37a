import { PERMISSIONS, type MessageView } from '@centralita/contracts';
import { Body, Controller, Get, Headers, HttpCode, HttpStatus, Param, Post, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { Public, RequirePermission } from '../auth/access.decorator';
import { bearerToken } from '../auth/auth.guard';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { WebchatService } from '../conversations/webchat.service';
import { ACCEPTED_TYPES, attachmentMaxBytes, dispositionFor } from './attachment-content';
import type { StoredAttachment } from './attachment-store.service';
import { AttachmentStoreService } from './attachment-store.service';
import { AttachmentsService, type UploadedPart } from './attachments.service';
import { UploadFieldsDto } from './attachments.dto';

/**
 * The multipart parser's own cap (one byte over the platform's limit, so the service still names
 * the limit for a file of exactly that size): a larger body is cut off and answered 413 while
 * streaming, never buffered whole. One file, a few small fields.
 */
const UPLOAD = FileInterceptor('file', {
  limits: { fileSize: attachmentMaxBytes() + 1, files: 1, fields: 4, fieldSize: 4096, parts: 6 },
});

const UPLOAD_BODY = {
  schema: {
    type: 'object',
    required: ['file'],
    properties: {
      file: { type: 'string', format: 'binary', description: `One of ${ACCEPTED_TYPES.join(', ')}` },
      caption: { type: 'string', maxLength: 500 },
      clientMessageId: { type: 'string' },
    },
  },
};

/** A template's media header: one file and the template message as JSON (parameters up to 1024 characters each). */
const TEMPLATE_UPLOAD = FileInterceptor('file', {
  limits: { fileSize: attachmentMaxBytes() + 1, files: 1, fields: 1, fieldSize: 64 * 1024, parts: 2 },
});

const TEMPLATE_UPLOAD_BODY = {
  schema: {
    type: 'object',
    required: ['file', 'template'],
    properties: {
      file: { type: 'string', format: 'binary', description: "The header's image (JPEG, PNG), video (MP4, 3GPP) or document (PDF)" },
      template: {
        type: 'string',
        description: 'TemplateMessageInput as JSON: {name, language, bodyParameters, headerParameters?, clientMessageId?}',
      },
    },
  },
};

/** A stored file answered as an attachment: never sniffed, never run, never framed. */
async function sendAttachment(res: Response, store: AttachmentStoreService, attachment: StoredAttachment): Promise<void> {
  const file = await store.open(attachment);
  res.status(200);
  res.setHeader('Content-Type', attachment.mime_type);
  res.setHeader('Content-Length', String(file.byteSize));
  res.setHeader('Content-Disposition', dispositionFor(attachment.kind, attachment.file_name));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // Opened directly, the file may load nothing and run nothing (a PDF viewer or an image only).
  res.setHeader('Content-Security-Policy', "default-src 'none'; img-src 'self'; media-src 'self'; sandbox; frame-ancestors 'none'");
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'private, no-store');
  await pipeline(file.stream, res);
}

@ApiTags('attachments')
@ApiBearerAuth()
@Controller()
export class AttachmentsController {
  constructor(
    private readonly attachments: AttachmentsService,
    private readonly store: AttachmentStoreService,
  ) {}

  @Post('conversations/:id/attachments')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @UseInterceptors(UPLOAD)
  @ApiConsumes('multipart/form-data')
  @ApiBody(UPLOAD_BODY)
  @ApiOperation({
    summary:
      'Send one file (multipart field "file", optional caption and clientMessageId) as a message; checked by content, size-limited (ATTACHMENT_MAX_BYTES and the channel)',
  })
  @ApiErrors(400, 401, 403, 404, 409, 413)
  upload(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @UploadedFile() file: UploadedPart | undefined,
    @Body() fields: UploadFieldsDto,
  ): Promise<MessageView> {
    return this.attachments.uploadByAgent(principal, id, file, fields);
  }

  @Post('conversations/:id/template-messages/media')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @UseInterceptors(TEMPLATE_UPLOAD)
  @ApiConsumes('multipart/form-data')
  @ApiBody(TEMPLATE_UPLOAD_BODY)
  @ApiOperation({
    summary:
      'Send an approved template whose media header is the uploaded file (multipart "file" and "template", a TemplateMessageInput as JSON); checked against the header\'s types and size',
  })
  @ApiErrors(400, 401, 403, 404, 409, 413, 502)
  uploadTemplateHeader(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @UploadedFile() file: UploadedPart | undefined,
    @Body() fields: { template?: string },
  ): Promise<MessageView> {
    return this.attachments.uploadTemplateHeader(principal, id, file, {
      template: typeof fields?.template === 'string' ? fields.template : undefined,
    });
  }

  @Get('attachments/:id')
  @RequirePermission(PERMISSIONS.conversationsHandle, PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: 'Download an attachment (inline only for images, audio and video; nosniff)' })
  @ApiErrors(400, 401, 403, 404)
  async download(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string, @Res() res: Response): Promise<void> {
    await sendAttachment(res, this.store, await this.attachments.forStaff(principal, id));
  }
}

/** The web-chat visitor's files: the visitor token names the one conversation whose files they may send and read. */
@ApiTags('webchat')
@ApiHeader({ name: 'Authorization', required: true, description: 'Bearer <visitorToken>' })
@Controller('webchat/conversation/attachments')
export class WebchatAttachmentsController {
  constructor(
    private readonly attachments: AttachmentsService,
    private readonly store: AttachmentStoreService,
    private readonly webchat: WebchatService,
  ) {}

  @Post()
  @Public()
  @HttpCode(HttpStatus.OK)
  @UseInterceptors(UPLOAD)
  @ApiConsumes('multipart/form-data')
  @ApiBody(UPLOAD_BODY)
  @ApiOperation({ summary: 'Send one file as a message of the visitor’s conversation; rate-limited with the messages' })
  @ApiErrors(400, 401, 404, 409, 413, 429)
  upload(
    @Headers('authorization') authorization: string | undefined,
    @UploadedFile() file: UploadedPart | undefined,
    @Body() fields: UploadFieldsDto,
  ): Promise<MessageView> {
    return this.attachments.uploadByVisitor(this.webchat.identify(bearerToken(authorization)), file, fields);
  }

  @Get(':id')
  @Public()
  @ApiOperation({ summary: 'Download a file of the visitor’s own conversation' })
  @ApiErrors(400, 401, 404)
  async download(
    @Headers('authorization') authorization: string | undefined,
    @Param('id', ParseUuidPipe) id: string,
    @Res() res: Response,
  ): Promise<void> {
    const visitor = this.webchat.identify(bearerToken(authorization));
    await sendAttachment(res, this.store, await this.attachments.forVisitor(visitor, id));
  }
}
