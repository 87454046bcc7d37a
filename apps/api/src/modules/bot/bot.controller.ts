import {
  PERMISSIONS,
  type BotAnswerView,
  type BotSettingsView,
  type BotSummaryView,
  type BotSynonymGroup,
  type BotUnansweredView,
  type ConversationView,
} from '@centralita/contracts';
import { Body, Controller, Get, Headers, HttpCode, HttpStatus, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { Public, RequirePermission } from '../auth/access.decorator';
import { bearerToken } from '../auth/auth.guard';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { conversationView } from '../machine-host/views';
import { VisitorTokenService } from '../realtime/visitor-token.service';
import { BotAdminService } from './bot-admin.service';
import { BotService } from './bot.service';

/** Types only: BotAdminService checks every field and names the problem. */
export class BotSettingsDto {
  @ApiPropertyOptional() @Allow() botEnabled?: unknown;
  @ApiPropertyOptional({ type: [String] }) @Allow() handoffKeywords?: unknown;
  @ApiPropertyOptional({ minimum: 1, maximum: 50 }) @Allow() maxTurns?: unknown;
  @ApiPropertyOptional({ minimum: 0.05, maximum: 1 }) @Allow() minScore?: unknown;
  @ApiPropertyOptional({ description: '{ es: { greeting, unknown, handoff }, en: {…} }' }) @Allow() texts?: unknown;
}

export class BotTestDto {
  @ApiPropertyOptional({ format: 'uuid' }) @Allow() attentionLineId?: unknown;
  @ApiPropertyOptional({ maxLength: 500 }) @Allow() text?: unknown;
}

export class BotSynonymsDto {
  @ApiPropertyOptional({ description: '[{ terms: ["envío", "despacho"] }]' }) @Allow() groups?: unknown;
}

export class BotResolveDto {
  @ApiPropertyOptional({ default: true }) @Allow() resolved?: unknown;
}

export class BotUnansweredQueryDto {
  @ApiPropertyOptional({ enum: ['true', 'false'] }) @Allow() resolved?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @Allow() lineId?: string;
}

const ADMIN = [PERMISSIONS.attentionLinesManage, PERMISSIONS.qnaManage] as const;

@ApiTags('bot')
@ApiBearerAuth()
@Controller('bot')
export class BotController {
  constructor(private readonly admin: BotAdminService) {}

  @Get('lines/:lineId')
  @RequirePermission(...ADMIN)
  @ApiOperation({ summary: "A line's bot settings (the defaults, disabled, when never saved); another tenant's line answers 404" })
  @ApiErrors(400, 401, 403, 404)
  settings(@Param('lineId', ParseUuidPipe) lineId: string, @CurrentPrincipal() principal: Principal): Promise<BotSettingsView> {
    return this.admin.settings(principal, lineId);
  }

  @Put('lines/:lineId')
  @RequirePermission(...ADMIN)
  @ApiOperation({ summary: "Saves a line's bot settings (fields left out keep their value)" })
  @ApiErrors(400, 401, 403, 404)
  save(
    @Param('lineId', ParseUuidPipe) lineId: string,
    @Body() body: BotSettingsDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<BotSettingsView> {
    return this.admin.save(principal, lineId, body as Record<string, unknown>);
  }

  @Post('test')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(...ADMIN)
  @ApiOperation({ summary: "What the line's bot would answer (its score, the QnA entry), enabled or not; nothing is stored" })
  @ApiErrors(400, 401, 403, 404)
  test(@Body() body: BotTestDto, @CurrentPrincipal() principal: Principal): Promise<BotAnswerView> {
    const lineId = new ParseUuidPipe().transform(typeof body.attentionLineId === 'string' ? body.attentionLineId : '', {
      type: 'body',
      data: 'attentionLineId',
    });
    return this.admin.test(principal, lineId, body.text);
  }

  @Get('synonyms')
  @RequirePermission(...ADMIN)
  @ApiOperation({ summary: "The tenant's synonym groups" })
  @ApiErrors(401, 403)
  synonyms(@CurrentPrincipal() principal: Principal): Promise<BotSynonymGroup[]> {
    return this.admin.synonyms(principal);
  }

  @Put('synonyms')
  @RequirePermission(...ADMIN)
  @ApiOperation({ summary: "Replaces the tenant's synonym groups (2 to 20 words each)" })
  @ApiErrors(400, 401, 403)
  saveSynonyms(@Body() body: BotSynonymsDto, @CurrentPrincipal() principal: Principal): Promise<BotSynonymGroup[]> {
    return this.admin.saveSynonyms(principal, body.groups);
  }

  @Get('unanswered')
  @RequirePermission(...ADMIN)
  @ApiOperation({ summary: 'Questions the bot could not answer, most asked first (resolved=true: those marked resolved)' })
  @ApiErrors(400, 401, 403)
  unanswered(@Query() query: BotUnansweredQueryDto, @CurrentPrincipal() principal: Principal): Promise<BotUnansweredView[]> {
    return this.admin.unanswered(principal, query);
  }

  @Post('unanswered/:id/resolve')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(...ADMIN)
  @ApiOperation({ summary: 'Marks an unanswered question resolved (resolved: false reopens it)' })
  @ApiErrors(400, 401, 403, 404)
  resolve(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: BotResolveDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ resolved: boolean }> {
    return this.admin.resolve(principal, id, body.resolved !== false);
  }

  @Get('conversations/:id')
  @RequirePermission(PERMISSIONS.conversationsHandle, PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: 'What the bot collected in a conversation (null when the bot never took it); not yours: 404' })
  @ApiErrors(400, 401, 403, 404)
  summary(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<BotSummaryView | null> {
    return this.admin.summary(principal, id);
  }
}

/** The web-chat customer's "talk to a person" button (visitor token, as the other web-chat routes). */
@ApiTags('webchat')
@Controller('webchat/conversation/bot')
export class BotVisitorController {
  constructor(
    private readonly bot: BotService,
    private readonly tokens: VisitorTokenService,
  ) {}

  @Post('handoff')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Leaves the bot for a person: the conversation is queued on its line (409 when it is not with the bot)' })
  @ApiErrors(401, 404, 409)
  async handoff(@Headers('authorization') authorization: string | undefined): Promise<ConversationView> {
    const visitor = this.tokens.verify(bearerToken(authorization));
    return conversationView(await this.bot.handoffOnRequest(visitor.tenantId, visitor.conversationId));
  }
}
