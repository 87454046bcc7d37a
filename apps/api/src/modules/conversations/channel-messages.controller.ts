import { PERMISSIONS, type MessageView, type ReplyWindowView, type TemplateView } from '@centralita/contracts';
import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { TemplateMessageDto } from './conversations.dto';
import { DeskService } from './desk.service';
import { OutboundRulesService } from './outbound-rules.service';
import { TemplateSendService } from './template-send.service';
import { Idempotent } from '../idempotency/idempotency.interceptor';

/** What the desk's composer needs on a messaging conversation: the reply window, the account's templates, template sends. */
@ApiTags('conversations')
@ApiBearerAuth()
@Controller('conversations')
export class ChannelMessagesController {
  constructor(
    private readonly desk: DeskService,
    private readonly rules: OutboundRulesService,
    private readonly templateSends: TemplateSendService,
  ) {}

  @Get(':id/reply-window')
  @RequirePermission(PERMISSIONS.conversationsHandle, PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: 'Whether free text can still be sent to the customer and until when (templates after that)' })
  @ApiErrors(400, 401, 403, 404)
  async replyWindow(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<ReplyWindowView> {
    return this.rules.view(await this.desk.visible(principal, id));
  }

  @Get(':id/templates')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({ summary: "The approved templates of the conversation's channel account (400 when its channel has none)" })
  @ApiErrors(400, 401, 403, 404, 502)
  async templates(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<TemplateView[]> {
    return this.rules.templates(await this.desk.visible(principal, id));
  }

  @Post(':id/template-messages')
  @Idempotent()
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary:
      'Send an approved template (outside the reply window too): stored with its rendered body as text, sent by the worker with its parameters',
  })
  @ApiErrors(400, 401, 403, 404, 409, 502)
  async sendTemplate(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: TemplateMessageDto,
  ): Promise<MessageView> {
    return this.templateSends.send(principal, id, body);
  }
}
