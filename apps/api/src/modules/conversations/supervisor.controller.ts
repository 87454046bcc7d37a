import { PERMISSIONS, type AgentView, type ConversationView, type LineQueueView, type NoteView } from '@centralita/contracts';
import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { CloseDto, NoteDto, PauseDto, SupervisorConversationsQueryDto, TransferDto } from './conversations.dto';
import { DeskService, type TransitionEntry } from './desk.service';
import { MessagesService } from './messages.service';
import { SupervisorService, type Board, type BoardAgent } from './supervisor.service';
import { Idempotent } from '../idempotency/idempotency.interceptor';

@ApiTags('supervisor')
@ApiBearerAuth()
@Controller('supervisor')
export class SupervisorController {
  constructor(
    private readonly supervisor: SupervisorService,
    private readonly desk: DeskService,
  ) {}

  @Get('board')
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: 'Agents, queues and open conversations in one answer (resync)' })
  board(@CurrentPrincipal() principal: Principal): Promise<Board> {
    return this.supervisor.board(principal.clientId);
  }

  @Get('conversations')
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: 'Conversations by status, line, agent, channel; showAll=true includes closed ones' })
  @ApiErrors(400, 401, 403)
  conversations(@CurrentPrincipal() principal: Principal, @Query() query: SupervisorConversationsQueryDto): Promise<ConversationView[]> {
    return this.supervisor.conversations(principal.clientId, query);
  }

  @Get('queues')
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: 'Live queue per attention line: waiting, longest wait, agents available' })
  queues(@CurrentPrincipal() principal: Principal): Promise<LineQueueView[]> {
    return this.supervisor.queues(principal.clientId);
  }

  @Get('agents')
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: 'Agent board: state, time in state, load' })
  agents(@CurrentPrincipal() principal: Principal): Promise<BoardAgent[]> {
    return this.supervisor.agents(principal.clientId);
  }

  @Post('conversations/:id/reassign')
  @Idempotent()
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Move a conversation to another line or agent' })
  @ApiErrors(400, 401, 403, 404, 409)
  reassign(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: TransferDto,
  ): Promise<ConversationView> {
    return this.desk.transfer(principal, id, body, true);
  }

  @Post('conversations/:id/close')
  @Idempotent()
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @HttpCode(HttpStatus.OK)
  @ApiErrors(400, 401, 403, 404, 409)
  close(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: CloseDto,
  ): Promise<ConversationView> {
    return this.desk.close(principal, id, body.disposition, body.reason, true);
  }

  @Get('conversations/:id/transitions')
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: 'The transition log of a conversation and the exact time in each state' })
  @ApiErrors(400, 401, 403, 404)
  transitions(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
  ): Promise<{ transitions: TransitionEntry[]; msInState: Record<string, number> }> {
    return this.desk.timeInStates(principal.clientId, 'conversation', id);
  }

  @Get('agents/:id/transitions')
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @ApiErrors(400, 401, 403, 404)
  agentTransitions(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
  ): Promise<{ transitions: TransitionEntry[]; msInState: Record<string, number> }> {
    return this.desk.timeInStates(principal.clientId, 'agent', id);
  }

  @Post('agents/:id/pause')
  @Idempotent()
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Force a pause with a reason' })
  @ApiErrors(400, 401, 403, 404, 409)
  forcePause(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string, @Body() body: PauseDto): Promise<AgentView> {
    return this.desk.pause(principal, body.reasonId, id, true);
  }

  @Post('agents/:id/logout')
  @Idempotent()
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Force a logout; held conversations go back to their lines' })
  @ApiErrors(400, 401, 403, 404, 409)
  forceLogout(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<AgentView> {
    return this.desk.logout(principal, id, true);
  }
}

/** Private notes: staff only (the agent handling the conversation, or supervisors); never sent to visitors. */
@ApiTags('conversations')
@ApiBearerAuth()
@Controller('conversations')
export class NotesController {
  constructor(
    private readonly desk: DeskService,
    private readonly messages: MessagesService,
  ) {}

  @Get(':id/notes')
  @RequirePermission(PERMISSIONS.conversationsHandle, PERMISSIONS.conversationsSupervise)
  @ApiErrors(400, 401, 403, 404)
  async list(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<NoteView[]> {
    await this.desk.visible(principal, id);
    return this.messages.notes(id);
  }

  @Post(':id/notes')
  @RequirePermission(PERMISSIONS.conversationsHandle, PERMISSIONS.conversationsSupervise)
  @HttpCode(HttpStatus.OK)
  @ApiErrors(400, 401, 403, 404)
  async add(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string, @Body() body: NoteDto): Promise<NoteView> {
    const conversation = await this.desk.visible(principal, id);
    return this.messages.addNote(conversation, principal.userId, body.text);
  }
}
