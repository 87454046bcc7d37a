import type { ConversationView, MessageView, SentMessageView, StartChatResult, SurveyView, WebchatLineView } from '@centralita/contracts';
import { Body, Controller, Get, Headers, HttpCode, HttpStatus, Param, Post, Query, Req } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { Public } from '../auth/access.decorator';
import { bearerToken } from '../auth/auth.guard';
import { clientIp } from '../auth/principal';
import {
  MenuChoiceDto,
  MessagesQueryDto,
  ReadMarkDto,
  SendMessageDto,
  StartChatDto,
  SurveyAnswerDto,
  TypingDto,
} from './conversations.dto';
import { WebchatService, type VisitorConversation } from './webchat.service';
import { Idempotent } from '../idempotency/idempotency.interceptor';

/**
 * Web-chat customers. Public routes: starting is rate-limited per IP; everything after carries the
 * visitor token (`Authorization: Bearer <visitorToken>`), which names the one conversation.
 */
@ApiTags('webchat')
@ApiHeader({ name: 'Authorization', required: false, description: 'Bearer <visitorToken> (all routes but start)' })
@Controller('webchat')
export class WebchatController {
  constructor(private readonly webchat: WebchatService) {}

  @Post('conversations')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Start a conversation on a line; answers the visitor token. 404 for an unknown or deleted line, 409 when it is closed',
  })
  @ApiErrors(400, 404, 409, 429)
  start(@Body() body: StartChatDto, @Req() request: Request): Promise<StartChatResult> {
    return this.webchat.start(body, clientIp(request));
  }

  @Get('lines/:lineId')
  @Public()
  @ApiOperation({
    summary:
      "Before starting: the tenant's welcome and off-hours messages, the widget title, whether the line is open now, its weekly hours and, while closed, when it opens again (in the line's zone)",
  })
  @ApiErrors(404)
  line(@Param('lineId') lineId: string): Promise<WebchatLineView> {
    return this.webchat.lineInfo(lineId);
  }

  @Get('conversation')
  @Public()
  @ApiOperation({ summary: 'Reconnect: the conversation, its messages and the queue position' })
  @ApiErrors(401, 404)
  get(@Headers('authorization') authorization: string | undefined): Promise<VisitorConversation> {
    return this.webchat.get(this.webchat.identify(bearerToken(authorization)));
  }

  @Post('conversation/menu')
  @Idempotent()
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Query type and submenu (both required): the conversation queues on its line' })
  @ApiErrors(400, 401, 409)
  menu(@Headers('authorization') authorization: string | undefined, @Body() body: MenuChoiceDto): Promise<ConversationView> {
    return this.webchat.completeMenu(this.webchat.identify(bearerToken(authorization)), body);
  }

  @Get('conversation/messages')
  @Public()
  @ApiOperation({ summary: 'Messages in order (after a sequence)' })
  @ApiErrors(400, 401)
  messages(@Headers('authorization') authorization: string | undefined, @Query() query: MessagesQueryDto): Promise<MessageView[]> {
    return this.webchat.list(this.webchat.identify(bearerToken(authorization)), query.after);
  }

  @Post('conversation/messages')
  @Idempotent()
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary:
      "Send a message (1–500 characters after trimming); rate-limited per conversation. Answers the message and `conversationVersion`, the conversation's version with it",
  })
  @ApiErrors(400, 401, 409, 429)
  send(@Headers('authorization') authorization: string | undefined, @Body() body: SendMessageDto): Promise<SentMessageView> {
    return this.webchat.send(this.webchat.identify(bearerToken(authorization)), body);
  }

  @Post('conversation/typing')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiErrors(400, 401)
  typing(@Headers('authorization') authorization: string | undefined, @Body() body: TypingDto): Promise<{ typing: boolean }> {
    return this.webchat.typing(this.webchat.identify(bearerToken(authorization)), body.typing);
  }

  @Post('conversation/read')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiErrors(400, 401)
  read(@Headers('authorization') authorization: string | undefined, @Body() body: ReadMarkDto): Promise<{ read: number }> {
    return this.webchat.read(this.webchat.identify(bearerToken(authorization)), body.upToSequence);
  }

  @Get('conversation/survey')
  @Public()
  @ApiOperation({ summary: "The attention line's post-conversation poll: its questions, response types and choices" })
  @ApiErrors(401, 404)
  getSurvey(@Headers('authorization') authorization: string | undefined): Promise<SurveyView> {
    return this.webchat.survey(this.webchat.identify(bearerToken(authorization)));
  }

  @Post('conversation/survey')
  @Idempotent()
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Answer a question of the post-conversation survey' })
  @ApiErrors(400, 401, 409)
  survey(@Headers('authorization') authorization: string | undefined, @Body() body: SurveyAnswerDto): Promise<ConversationView> {
    return this.webchat.answerSurvey(this.webchat.identify(bearerToken(authorization)), body);
  }

  @Post('conversation/leave')
  @Idempotent()
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Leave while in the menu or the queue (abandoned)' })
  @ApiErrors(401, 409)
  leave(@Headers('authorization') authorization: string | undefined): Promise<ConversationView> {
    return this.webchat.leave(this.webchat.identify(bearerToken(authorization)));
  }
}
