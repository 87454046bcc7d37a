import { PERMISSIONS } from '@centralita/contracts';
import { Body, Controller, Get, HttpCode, HttpStatus, Post, UploadedFiles, UseInterceptors } from '@nestjs/common';
import { FilesInterceptor } from '@nestjs/platform-express';
import { ApiBearerAuth, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../../common/api-envelope.decorator';
import { attachmentMaxBytes } from '../../attachments/attachment-content';
import type { UploadedPart } from '../../attachments/attachments.service';
import { RequirePermission } from '../../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../../auth/principal';
import { OutboundEmailService, type EmailSendAccountView, type NewEmailResult } from './outbound-email.service';

/** Same limits as a desk reply: at most ten files and one JSON field. */
const NEW_EMAIL_UPLOAD = FilesInterceptor('files', 10, {
  limits: { fileSize: attachmentMaxBytes() + 1, files: 10, fields: 2, fieldSize: 256 * 1024, parts: 12 },
});

@ApiTags('emails')
@ApiBearerAuth()
@Controller('emails')
export class OutboundEmailController {
  constructor(private readonly emails: OutboundEmailService) {}

  @Get('accounts')
  @RequirePermission(PERMISSIONS.emailsSend)
  @ApiOperation({ summary: "The tenant's enabled email accounts an email can be sent from: id, name and sender address only" })
  @ApiErrors(401, 403)
  accounts(@CurrentPrincipal() principal: Principal): Promise<EmailSendAccountView[]> {
    return this.emails.accounts(principal);
  }

  @Post()
  @RequirePermission(PERMISSIONS.emailsSend)
  @HttpCode(HttpStatus.OK)
  @UseInterceptors(NEW_EMAIL_UPLOAD)
  @ApiConsumes('multipart/form-data')
  @ApiOperation({
    summary:
      'Starts an email conversation (multipart: field "payload" = JSON {accountId, to (contact id or address), subject, html, cc?, bcc?, clientMessageId?}, files "files"): Active with the sender at once (409 when not available or at capacity), the email sent by the worker like a reply',
  })
  @ApiErrors(400, 401, 403, 404, 409, 413)
  send(
    @CurrentPrincipal() principal: Principal,
    @Body('payload') payload: unknown,
    @UploadedFiles() files: UploadedPart[] | undefined,
  ): Promise<NewEmailResult> {
    return this.emails.send(principal, payload, files ?? []);
  }
}
