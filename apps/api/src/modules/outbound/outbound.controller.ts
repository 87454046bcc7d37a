import {
  languageFromAcceptLanguage,
  CALLBACK_DUE_FILTERS,
  CALLBACK_STATUSES,
  DIALER_MODES,
  OUTBOUND_DISPOSITIONS,
  PERMISSIONS,
  type DialerCampaignView,
  type DoNotCallEntry,
  type OutboundBoardView,
  type OutboundCallback,
  type OutboundCallView,
  type OutboundFormOptions,
  type Page,
} from '@centralita/contracts';
import { Body, Controller, Delete, Get, Headers, HttpCode, HttpStatus, Param, Post, Put, Query, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsObject, IsOptional, IsString, IsUUID, Length, MaxLength } from 'class-validator';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { AppException } from '../../common/app.exception';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { PagedQueryDto } from '../admin/paged-query.dto';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { OutboundBoardService } from './outbound-board.service';
import { CampaignAdminService } from './campaign-admin.service';
import { DoNotCallService } from './do-not-call.service';
import { OutboundCallActionsService } from './outbound-call-actions.service';
import { OutboundResultsService } from './outbound-results.service';
import { OutboundAgentService } from './outbound-agent.service';

/** Types only; validateDialerCampaign() (shared with the console) holds the rules. */
export class DialerCampaignDto {
  @ApiProperty() @IsOptional() @IsString() name?: string;
  @ApiProperty({ format: 'uuid' }) @IsOptional() @IsUUID() phoneListId?: string;
  @ApiProperty({ enum: DIALER_MODES }) @IsOptional() @IsString() mode?: (typeof DIALER_MODES)[number];
  @ApiPropertyOptional({ default: 3, description: 'Abandoned ÷ human-answered, percent' })
  @IsOptional()
  @IsNumber()
  abandonCapPercent?: number;
  @ApiPropertyOptional({ default: 2000 }) @IsOptional() @IsInt() abandonThresholdMs?: number;
  @ApiPropertyOptional({ default: 3 }) @IsOptional() @IsInt() maxAttempts?: number;
  @ApiPropertyOptional({ description: 'Seconds per outcome (busy, noAnswer, answeringMachine, failed, abandoned)' })
  @IsOptional()
  @IsObject()
  retryDelays?: Record<string, number>;
  @ApiPropertyOptional({ description: "{mon: [{from: '09:00', to: '21:00'}], …} in the contact's local time" })
  @IsOptional()
  @IsObject()
  callingWindows?: Record<string, { from: string; to: string }[]>;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() scheduleFrom?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() scheduleTo?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, format: 'uuid' }) @IsOptional() @IsUUID() trunkId?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() @MaxLength(20) callerId?: string | null;
  @ApiPropertyOptional({ type: [String] }) @IsOptional() @IsArray() @IsUUID('all', { each: true }) agentIds?: string[];
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    format: 'uuid',
    description: 'Outbound template (its script shows in the screen pop)',
  })
  @IsOptional()
  @IsUUID()
  templateId?: string | null;
}

export class CampaignActionDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(200) reason?: string;
}

export class DncDto {
  @ApiProperty({ description: 'E.164' }) @IsString() @Length(1, 32) phone!: string;
  @ApiPropertyOptional({ type: String, nullable: true, format: 'uuid', description: 'null = tenant-wide' })
  @IsOptional()
  @IsUUID()
  campaignId?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() @MaxLength(200) reason?: string | null;
}

export class DncQueryDto extends PagedQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: "Only that campaign's own entries" }) @IsOptional() @IsUUID() campaignId?: string;
  @ApiPropertyOptional({
    enum: ['tenant', 'campaign'],
    description: 'tenant = only entries for every campaign; campaign = only per-campaign ones',
  })
  @IsOptional()
  @IsIn(['tenant', 'campaign'])
  scope?: 'tenant' | 'campaign';
}

export class DispositionDto {
  @ApiProperty({ enum: OUTBOUND_DISPOSITIONS }) @IsIn(OUTBOUND_DISPOSITIONS as unknown as string[]) disposition!: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: "ISO time; required for 'callback'" })
  @IsOptional()
  @IsString()
  callbackAt?: string | null;
}

export class CallbacksQueryDto {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() campaignId?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'Callbacks booked by that agent (outbound.manage)' })
  @IsOptional()
  @IsUUID()
  agentId?: string;
  @ApiPropertyOptional({ description: "true = only the caller's own callbacks (agents always get only theirs)" })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  mine?: boolean;
  @ApiPropertyOptional({ enum: CALLBACK_STATUSES })
  @IsOptional()
  @IsIn(CALLBACK_STATUSES as unknown as string[])
  status?: (typeof CALLBACK_STATUSES)[number];
  @ApiPropertyOptional({ enum: CALLBACK_DUE_FILTERS, description: 'Pending callbacks already due (overdue) or still ahead (upcoming)' })
  @IsOptional()
  @IsIn(CALLBACK_DUE_FILTERS as unknown as string[])
  due?: (typeof CALLBACK_DUE_FILTERS)[number];
}

const MANAGE = PERMISSIONS.outboundManage;
const CAMPAIGN_ACTIONS = ['start', 'pause', 'resume', 'cancel', 'schedule'] as const;
type CampaignAction = (typeof CAMPAIGN_ACTIONS)[number];

@ApiTags('outbound')
@ApiBearerAuth()
@Controller('outbound')
export class OutboundController {
  constructor(
    private readonly campaigns: CampaignAdminService,
    private readonly doNotCall: DoNotCallService,
    private readonly calls: OutboundCallActionsService,
    private readonly resultsReport: OutboundResultsService,
    private readonly boards: OutboundBoardService,
    private readonly agent: OutboundAgentService,
  ) {}

  // campaigns
  @Get('campaigns')
  @RequirePermission(MANAGE, PERMISSIONS.conversationsSupervise)
  @ApiErrors(400, 401, 403)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PagedQueryDto): Promise<Page<DialerCampaignView>> {
    return this.campaigns.list(principal, query);
  }

  @Post('campaigns')
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Create a draft campaign over a phone list (its valid E.164 entries become the contacts)' })
  @ApiErrors(400, 401, 403)
  create(@CurrentPrincipal() principal: Principal, @Body() body: DialerCampaignDto): Promise<DialerCampaignView> {
    return this.campaigns.create(principal, body);
  }

  @Get('campaigns/:id')
  @RequirePermission(MANAGE, PERMISSIONS.conversationsSupervise)
  @ApiErrors(401, 403, 404)
  get(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<DialerCampaignView> {
    return this.campaigns.get(principal, id);
  }

  @Put('campaigns/:id')
  @RequirePermission(MANAGE)
  @ApiErrors(400, 401, 403, 404, 409)
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: DialerCampaignDto,
  ): Promise<DialerCampaignView> {
    return this.campaigns.update(principal, id, body);
  }

  @Delete('campaigns/:id')
  @RequirePermission(MANAGE)
  @ApiErrors(401, 403, 404, 409)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<null> {
    await this.campaigns.remove(principal, id);
    return null;
  }

  @Post('campaigns/:id/:action')
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'start | pause | resume | cancel | schedule (dialer-campaign machine; an illegal one answers 409 illegal_transition)',
  })
  @ApiErrors(400, 401, 403, 404, 409)
  act(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Param('action') action: string,
    @Body() body: CampaignActionDto,
  ): Promise<DialerCampaignView> {
    if (!CAMPAIGN_ACTIONS.includes(action as CampaignAction)) return Promise.reject(AppException.notFound());
    return this.campaigns.act(principal, id, action as CampaignAction, body.reason);
  }

  @Get('campaigns/:id/board')
  @RequirePermission(MANAGE, PERMISSIONS.conversationsSupervise)
  @ApiOperation({
    summary: 'Live board: dial level, calls in progress, answered, abandoned rate vs cap, agents by state, remaining records',
  })
  @ApiErrors(401, 403, 404)
  board(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<OutboundBoardView> {
    return this.boards.board(principal.clientId, id);
  }

  @Get('campaigns/:id/results')
  @RequirePermission(MANAGE, PERMISSIONS.conversationsSupervise)
  @ApiErrors(401, 403, 404)
  results(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Query() query: PagedQueryDto,
  ): Promise<Page<OutboundCallView>> {
    return this.resultsReport.results(principal, id, query);
  }

  @Get('campaigns/:id/results.csv')
  @RequirePermission(MANAGE, PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: 'Results report as CSV (formula cells neutralised; not enveloped)' })
  @ApiHeader({ name: 'Accept-Language', required: false, description: 'Language of the column headers (es en el it sr de ru; default es)' })
  @ApiErrors(401, 403, 404)
  async csv(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Headers('accept-language') acceptLanguage: string | undefined,
  ): Promise<StreamableFile> {
    const csv = await this.resultsReport.resultsCsv(principal, id, languageFromAcceptLanguage(acceptLanguage));
    return new StreamableFile(Buffer.from(`\uFEFF${csv}`, 'utf8'), {
      type: 'text/csv; charset=utf-8',
      disposition: 'attachment; filename="outbound-results.csv"',
    });
  }

  @Get('form-options')
  @RequirePermission(MANAGE)
  @ApiOperation({ summary: "The campaign form's pickers: the tenant's trunks and the users who handle conversations" })
  @ApiErrors(401, 403)
  formOptions(@CurrentPrincipal() principal: Principal): Promise<OutboundFormOptions> {
    return this.campaigns.formOptions(principal);
  }

  // dnc
  @Get('dnc')
  @RequirePermission(MANAGE)
  @ApiErrors(401, 403)
  dnc(@CurrentPrincipal() principal: Principal, @Query() query: DncQueryDto): Promise<Page<DoNotCallEntry>> {
    return this.doNotCall.dncList(principal, query);
  }

  @Post('dnc')
  @RequirePermission(MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiErrors(400, 401, 403, 404, 409)
  addDnc(@CurrentPrincipal() principal: Principal, @Body() body: DncDto): Promise<DoNotCallEntry> {
    return this.doNotCall.dncAdd(principal, body);
  }

  @Delete('dnc/:id')
  @RequirePermission(MANAGE)
  @ApiErrors(401, 403, 404)
  async removeDnc(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<null> {
    await this.doNotCall.dncRemove(principal, id);
    return null;
  }

  // callbacks
  @Get('callbacks')
  @RequirePermission(MANAGE, PERMISSIONS.conversationsHandle)
  @ApiErrors(401, 403)
  @ApiOperation({ summary: 'Callbacks by due time (at most 500); agents without outbound.manage get only their own' })
  callbacks(@CurrentPrincipal() principal: Principal, @Query() query: CallbacksQueryDto): Promise<OutboundCallback[]> {
    return this.calls.callbacks(principal, query);
  }

  @Delete('callbacks/:id')
  @RequirePermission(MANAGE)
  @ApiErrors(401, 403, 404)
  async cancelCallback(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<null> {
    await this.calls.cancelCallback(principal, id);
    return null;
  }

  // the agent
  @Post('agent/waiting')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Agent presence → 'waiting for outbound call' (from ready or after-call work)" })
  @ApiErrors(401, 403, 404, 409)
  waiting(@CurrentPrincipal() principal: Principal) {
    return this.agent.waiting(principal);
  }

  @Post('agent/preview')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Preview mode: the next record of a running preview campaign, reserved for this agent (404 when none)' })
  @ApiErrors(401, 403, 404)
  previewNext(@CurrentPrincipal() principal: Principal) {
    return this.agent.previewNext(principal);
  }

  @Post('agent/preview/:callId/dial')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Preview mode: dial the previewed record (the agent waits for it; the dialer places it)' })
  @ApiErrors(401, 403, 404, 409)
  previewDial(@CurrentPrincipal() principal: Principal, @Param('callId', ParseUuidPipe) callId: string) {
    return this.agent.previewDial(principal, callId);
  }

  @Post('agent/preview/:callId/skip')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Preview mode: give the previewed record back without dialling it' })
  @ApiErrors(401, 403, 404, 409)
  async previewSkip(@CurrentPrincipal() principal: Principal, @Param('callId', ParseUuidPipe) callId: string): Promise<null> {
    await this.agent.previewSkip(principal, callId);
    return null;
  }

  @Get('agent/call')
  @RequirePermission(PERMISSIONS.conversationsHandle)
  @ApiOperation({ summary: "The agent's connected or wrapping-up outbound call with the contact's data (screen pop); null when none" })
  @ApiErrors(401, 403)
  currentCall(@CurrentPrincipal() principal: Principal) {
    return this.calls.currentCall(principal);
  }

  @Post('calls/:id/hangup')
  @RequirePermission(PERMISSIONS.conversationsHandle, MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'HangUp: the agent ends the call (call → wrapUp, agent → afterCallWork)' })
  @ApiErrors(401, 403, 404, 409)
  hangUp(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<OutboundCallView> {
    return this.calls.hangUp(principal, id);
  }

  @Post('calls/:id/disposition')
  @RequirePermission(PERMISSIONS.conversationsHandle, MANAGE)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'UpdDISPO: stored on the call and the contact; callback books a callback, doNotCall lists the number' })
  @ApiErrors(400, 401, 403, 404, 409)
  disposition(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: DispositionDto,
  ): Promise<OutboundCallView> {
    return this.calls.disposition(principal, id, body);
  }
}
