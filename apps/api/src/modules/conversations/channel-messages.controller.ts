import { LIMITS, PERMISSIONS, type MessageView, type ReplyWindowView, type TemplateView } from '@centralita/contracts';
import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { AppException } from '../../common/app.exception';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { TemplateMessageDto } from './conversations.dto';
import { DeskService } from './desk.service';
import { OutboundRulesService, renderTemplate } from './outbound-rules.service';

/** What the desk's composer needs on a messaging conversation: the reply window, the account's templates, template sends. */
@ApiTags('conversations')
@ApiBearerAuth()
@Controller('conversations')
export class ChannelMessagesController {
  constructor(
    private readonly desk: DeskService,
    private readonly rules: OutboundRulesService,
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
    const conversation = await this.desk.visible(principal, id);
    DeskService.requireHandler(principal, conversation);
    const template = (await this.rules.templates(conversation)).find(
      (candidate) => candidate.name === body.name && candidate.language === body.language,
    );
    if (!template) {
      throw new AppException('validation', {
        message: `The account has no approved template ${body.name} in ${body.language}`,
        data: { fields: { name: ['not an approved template of this account'] } },
      });
    }
    if (body.bodyParameters.length !== template.parameterCount) {
      const message = `Template ${template.name} takes ${template.parameterCount} body parameters (got ${body.bodyParameters.length})`;
      throw new AppException('validation', { message, data: { fields: { bodyParameters: [message] } } });
    }
    const headerParameters = body.headerParameters ?? [];
    if (headerParameters.length !== template.headerParameterCount) {
      const message = `Template ${template.name} takes ${template.headerParameterCount} header parameters (got ${headerParameters.length})`;
      throw new AppException('validation', { message, data: { fields: { headerParameters: [message] } } });
    }
    // The desk shows what the customer reads (header, then body); a rendered text longer than a
    // message is cut (the provider sends the template itself).
    const rendered = [
      template.headerText ? renderTemplate(template.headerText, headerParameters) : '',
      renderTemplate(template.body, body.bodyParameters),
    ]
      .filter(Boolean)
      .join('\n');
    const text = Array.from(rendered).slice(0, LIMITS.maxMessageLength).join('');
    return this.desk.send(principal, id, {
      text,
      clientMessageId: body.clientMessageId,
      template: {
        name: template.name,
        language: template.language,
        bodyParameters: body.bodyParameters,
        ...(headerParameters.length ? { headerParameters } : {}),
      },
    });
  }
}
