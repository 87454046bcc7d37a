import { PERMISSIONS, type EmailMessageView, type MessageView } from '@centralita/contracts';
import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, UploadedFiles, UseInterceptors } from '@nestjs/common';
import { FilesInterceptor } from '@nestjs/platform-express';
import { ApiBearerAuth, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../../common/parse-uuid.pipe';
import { attachmentMaxBytes } from '../../attachments/attachment-content';
import type { UploadedPart } from '../../attachments/attachments.service';
import { RequirePermission } from '../../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../../auth/principal';
import { EmailDeskService } from './email-desk.service';

/** At most ten files and one JSON field per reply; each file within the platform's limit (413 while streaming otherwise). */
const REPLY_UPLOAD = FilesInterceptor('files', 10, {
  limits: { fileSize: attachmentMaxBytes() + 1, files: 10, fields: 2, fieldSize: 256 * 1024, parts: 12 },
});

@ApiTags('conversations')
@ApiBearerAuth()
@Controller('conversations')
export class EmailDeskController {
  constructor(private readonly email: EmailDeskService) {}

  @Get(':id/emails')
  @RequirePermission(PERMISSIONS.conversationsHandle, PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: "An email conversation's emails: subject, addresses, threading headers, bodies, SPF/DKIM/DMARC" })
  @ApiErrors(400, 401, 403, 404)
  list(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<EmailMessageView[]> {
    return this.email.list(principal, id);
  }

  @Post(':id/email-replies')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @UseInterceptors(REPLY_UPLOAD)
  @ApiConsumes('multipart/form-data')
  @ApiOperation({
    summary:
      'Reply by email (multipart: field "payload" = JSON {html, cc?, bcc?, subject?, clientMessageId?}, files "files"): stored pending, sent by the worker with In-Reply-To/References',
  })
  @ApiErrors(400, 401, 403, 404, 409, 413)
  reply(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body('payload') payload: unknown,
    @UploadedFiles() files: UploadedPart[] | undefined,
  ): Promise<MessageView> {
    return this.email.reply(principal, id, payload, files ?? []);
  }
}
