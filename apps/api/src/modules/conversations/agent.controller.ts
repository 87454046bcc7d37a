import {
  PERMISSIONS,
  type AgentView,
  type ConversationContext,
  type ConversationView,
  type MessageView,
  type TransferTargets,
} from '@centralita/contracts';
import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import {
  AgentLoginDto,
  CloseDto,
  MessagesQueryDto,
  PauseDto,
  ReadMarkDto,
  SendMessageDto,
  TransferDto,
  TypingDto,
} from './conversations.dto';
import { DeskService, type PauseReason } from './desk.service';
import { Idempotent } from '../idempotency/idempotency.interceptor';

@ApiTags('agent')
@ApiBearerAuth()
@Controller('agent')
export class AgentController {
  constructor(private readonly desk: DeskService) {}

  @Get('pause-reasons')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  pauseReasons(@CurrentPrincipal() principal: Principal): Promise<PauseReason[]> {
    return this.desk.pauseReasons(principal.clientId, principal.userId);
  }

  @Get('campaigns')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({
    summary: 'The campaigns the agent may start a shift in (the ones they serve, or all when none were chosen), oldest first',
  })
  campaigns(@CurrentPrincipal() principal: Principal): Promise<{ id: string; name: string }[]> {
    return this.desk.loginCampaigns(principal);
  }

  @Get('transfer-targets')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({
    summary:
      "The tenant's attention lines (agents with room, customers waiting) and the colleagues logged in (state and load), for transfers",
  })
  transferTargets(@CurrentPrincipal() principal: Principal): Promise<TransferTargets> {
    return this.desk.transferTargets(principal);
  }

  @Get('presence')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiErrors(401, 403)
  presence(@CurrentPrincipal() principal: Principal): Promise<AgentView> {
    return this.desk.ownPresence(principal);
  }

  @Post('presence/login')
  @Idempotent()
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary:
      'Start a shift in a campaign the agent serves (default: the first, GET /api/agent/campaigns); capacity = its allowed chats per agent',
  })
  @ApiErrors(400, 401, 403, 404, 409)
  login(@CurrentPrincipal() principal: Principal, @Body() body: AgentLoginDto): Promise<AgentView> {
    return this.desk.login(principal, body.campaignId);
  }

  @Post('presence/available')
  @Idempotent()
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Resume from a pause or wrap-up; ready to receive conversations' })
  @ApiErrors(401, 403, 404, 409)
  available(@CurrentPrincipal() principal: Principal): Promise<AgentView> {
    return this.desk.available(principal);
  }

  @Post('presence/pause')
  @Idempotent()
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiErrors(400, 401, 403, 404, 409)
  pause(@CurrentPrincipal() principal: Principal, @Body() body: PauseDto): Promise<AgentView> {
    return this.desk.pause(principal, body.reasonId);
  }

  @Post('presence/logout')
  @Idempotent()
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Log out; held conversations go back to their lines' })
  @ApiErrors(401, 403, 404, 409)
  logout(@CurrentPrincipal() principal: Principal): Promise<AgentView> {
    return this.desk.logout(principal);
  }

  @Get('conversations')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({ summary: 'My active conversations (resync after a long outage)' })
  mine(@CurrentPrincipal() principal: Principal): Promise<ConversationView[]> {
    return this.desk.myConversations(principal);
  }

  @Get('conversations/:id/context')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({ summary: "The line's name, the customer's web-chat menu choice and their earlier conversations" })
  @ApiErrors(400, 401, 403, 404)
  context(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<ConversationContext> {
    return this.desk.context(principal, id);
  }

  @Get('conversations/:id/messages')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiErrors(400, 401, 403, 404)
  messages(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Query() query: MessagesQueryDto,
  ): Promise<MessageView[]> {
    return this.desk.listMessages(principal, id, query.after);
  }

  @Post('conversations/:id/messages')
  @Idempotent()
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiErrors(400, 401, 403, 404, 409)
  send(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: SendMessageDto,
  ): Promise<MessageView> {
    return this.desk.send(principal, id, body);
  }

  @Post('conversations/:id/typing')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiErrors(400, 401, 403, 404)
  typing(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: TypingDto,
  ): Promise<{ typing: boolean }> {
    return this.desk.typing(principal, id, body.typing);
  }

  @Post('conversations/:id/read')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiErrors(400, 401, 403, 404)
  read(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: ReadMarkDto,
  ): Promise<{ read: number }> {
    return this.desk.read(principal, id, body.upToSequence);
  }

  @Post('conversations/:id/transfer')
  @Idempotent()
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Transfer to a line ({attentionLineId}) or an agent with room ({agentId})' })
  @ApiErrors(400, 401, 403, 404, 409)
  transfer(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: TransferDto,
  ): Promise<ConversationView> {
    return this.desk.transfer(principal, id, body);
  }

  @Post('conversations/:id/close')
  @Idempotent()
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Close with a disposition; goes to the survey when the line has a poll' })
  @ApiErrors(400, 401, 403, 404, 409)
  close(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: CloseDto,
  ): Promise<ConversationView> {
    return this.desk.close(principal, id, body.disposition, body.reason);
  }
}
