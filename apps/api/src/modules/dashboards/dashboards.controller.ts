import {
  QUEUE_GROUPINGS,
  DASHBOARD_WIDGETS,
  PERMISSIONS,
  SHORT_ABANDON_MODES,
  type ActiveByAgentRow,
  type AgentServiceRow,
  type ComplianceRow,
  type DashboardOptions,
  type DashboardSettings,
  type QueuePositionRow,
  type DashboardSummary,
  type PauseDetailRow,
  type QueueGrouping,
  type QueueStatusRow,
  type SentimentReport,
  type StaffingRow,
  type TrendPoint,
} from '@centralita/contracts';
import { Body, Controller, Get, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsNumber, IsOptional, IsString, IsUUID, Length, ValidateNested } from 'class-validator';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { DashboardsService } from './dashboards.service';

/** Epoch ms, or anything Date.parse reads (ISO-8601); anything else stays as is and fails @IsInt. */
const toEpoch = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string' || value === '') return value;
  if (/^\d+$/.test(value)) return Number(value);
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? value : parsed;
};

export class DashboardQueryDto {
  @ApiProperty({ description: 'Window start (inclusive): epoch ms or ISO-8601' })
  @Transform(toEpoch)
  @IsInt({ message: 'from must be a date (epoch ms or ISO-8601)' })
  from!: number;
  @ApiProperty({ description: 'Window end (exclusive): epoch ms or ISO-8601' })
  @Transform(toEpoch)
  @IsInt({ message: 'to must be a date (epoch ms or ISO-8601)' })
  to!: number;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() attentionLineId?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() campaignId?: string;
  @ApiPropertyOptional({ description: 'Channel code (webchat, whatsapp…)' }) @IsOptional() @IsString() @Length(1, 40) channel?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() agentId?: string;
}

export class TrendQueryDto extends DashboardQueryDto {
  @ApiPropertyOptional({ enum: ['hour', 'day'], default: 'hour' }) @IsOptional() @IsIn(['hour', 'day']) unit?: 'hour' | 'day';
}

export class QueuesQueryDto extends DashboardQueryDto {
  @ApiPropertyOptional({ enum: QUEUE_GROUPINGS, default: 'line' }) @IsOptional() @IsIn(QUEUE_GROUPINGS) by?: QueueGrouping;
}

export class ActiveQueryDto {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() agentId?: string;
}

export class PositionsQueryDto {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() attentionLineId?: string;
}

class ScheduleEntryDto {
  @ApiProperty({ minimum: 0, maximum: 6 }) @IsInt() day!: number;
  @ApiProperty({ example: '09:00' }) @IsString() from!: string;
  @ApiProperty({ example: '17:00' }) @IsString() to!: string;
}

/** Types only; validateDashboardSettings() (shared with the console) holds the ranges. */
export class DashboardSettingsDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 3600 }) @IsOptional() @IsInt() serviceLevelThresholdSec?: number;
  @ApiPropertyOptional({ minimum: 1, maximum: 99 }) @IsOptional() @IsInt() targetServiceLevelPct?: number;
  @ApiPropertyOptional({ minimum: 0, maximum: 600 }) @IsOptional() @IsInt() shortAbandonSec?: number;
  @ApiPropertyOptional({ enum: SHORT_ABANDON_MODES }) @IsOptional() @IsString() shortAbandonMode?: DashboardSettings['shortAbandonMode'];
  @ApiPropertyOptional({ example: 'Europe/Madrid' }) @IsOptional() @IsString() timeZone?: string;
  @ApiPropertyOptional({ enum: DASHBOARD_WIDGETS, isArray: true })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  visibleWidgets?: DashboardSettings['visibleWidgets'];
  @ApiPropertyOptional({ minimum: 10, maximum: 3600 }) @IsOptional() @IsInt() refreshSeconds?: number;
  @ApiPropertyOptional({ minimum: -1, maximum: 0 }) @IsOptional() @IsNumber() negativeThreshold?: number;
  @ApiPropertyOptional({ type: [ScheduleEntryDto] })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ScheduleEntryDto)
  schedule?: ScheduleEntryDto[];
}

/**
 * The query's filters. A caller who may not supervise (an agent on their own dashboard) always sees
 * their own figures: the agent filter is theirs whatever the query says, never the tenant's totals.
 */
const filters = (query: DashboardQueryDto, principal: Principal) => ({
  from: query.from,
  to: query.to,
  attentionLineId: query.attentionLineId,
  campaignId: query.campaignId,
  channel: query.channel,
  agentId: principal.permissions.includes(PERMISSIONS.dashboardSupervise) ? query.agentId : principal.userId,
});

/**
 * Dashboard figures over [from, to) with optional filters, computed from the transition log by
 * the KPI library; thresholds come from the client's dashboard settings. docs/user-guide.md
 * explains each figure.
 */
@ApiTags('dashboards')
@ApiBearerAuth()
@Controller('dashboards')
export class DashboardsController {
  constructor(private readonly dashboards: DashboardsService) {}

  @Get('settings')
  @RequirePermission(PERMISSIONS.dashboardView)
  @ApiOperation({ summary: "The client's dashboard settings (defaults until saved)" })
  @ApiErrors(401, 403)
  settings(@CurrentPrincipal() principal: Principal): Promise<DashboardSettings> {
    return this.dashboards.settings(principal.clientId);
  }

  @Put('settings')
  @RequirePermission(PERMISSIONS.settingsManage, PERMISSIONS.dashboardSupervise)
  @ApiOperation({ summary: 'Saves the dashboard settings (partial bodies keep the other values); audited' })
  @ApiErrors(400, 401, 403)
  saveSettings(@CurrentPrincipal() principal: Principal, @Body() body: DashboardSettingsDto): Promise<DashboardSettings> {
    return this.dashboards.saveSettings(principal, body);
  }

  @Get('summary')
  @RequirePermission(PERMISSIONS.dashboardView)
  @ApiOperation({ summary: 'Offered, answered, abandoned, service level, ASA, AHT, occupancy; waiting now' })
  @ApiErrors(400, 401, 403, 404)
  summary(@CurrentPrincipal() principal: Principal, @Query() query: DashboardQueryDto): Promise<DashboardSummary> {
    return this.dashboards.summary(principal.clientId, filters(query, principal));
  }

  @Get('trend')
  @RequirePermission(PERMISSIONS.dashboardView)
  @ApiOperation({ summary: "The summary's queue and handling figures per local hour or day (settings time zone)" })
  @ApiErrors(400, 401, 403, 404)
  trend(@CurrentPrincipal() principal: Principal, @Query() query: TrendQueryDto): Promise<TrendPoint[]> {
    return this.dashboards.trend(principal.clientId, filters(query, principal), query.unit ?? 'hour');
  }

  @Get('queues')
  @RequirePermission(PERMISSIONS.dashboardSupervise)
  @ApiOperation({ summary: 'Queue figures and who waits now, per attention line or per campaign' })
  @ApiErrors(400, 401, 403, 404)
  queues(@CurrentPrincipal() principal: Principal, @Query() query: QueuesQueryDto): Promise<QueueStatusRow[]> {
    return this.dashboards.queues(principal.clientId, filters(query, principal), query.by ?? 'line');
  }

  @Get('agents')
  @RequirePermission(PERMISSIONS.dashboardSupervise)
  @ApiOperation({ summary: 'Per agent: handled, AHT, time in each state, occupancy; status and load now' })
  @ApiErrors(400, 401, 403, 404)
  agents(@CurrentPrincipal() principal: Principal, @Query() query: DashboardQueryDto): Promise<AgentServiceRow[]> {
    return this.dashboards.agents(principal.clientId, filters(query, principal));
  }

  @Get('pauses')
  @RequirePermission(PERMISSIONS.dashboardSupervise)
  @ApiOperation({ summary: 'Accumulated pause time per agent and reason, clipped to the window' })
  @ApiErrors(400, 401, 403, 404)
  pauses(@CurrentPrincipal() principal: Principal, @Query() query: DashboardQueryDto): Promise<PauseDetailRow[]> {
    return this.dashboards.pauses(principal.clientId, filters(query, principal));
  }

  @Get('compliance')
  @RequirePermission(PERMISSIONS.dashboardSupervise)
  @ApiOperation({ summary: "Staff compliance: logged-in time against the settings' schedule, per agent" })
  @ApiErrors(400, 401, 403, 404)
  compliance(@CurrentPrincipal() principal: Principal, @Query() query: DashboardQueryDto): Promise<ComplianceRow[]> {
    return this.dashboards.compliance(principal.clientId, filters(query, principal));
  }

  @Get('staffing')
  @RequirePermission(PERMISSIONS.dashboardSupervise)
  @ApiOperation({ summary: 'Erlang C agents recommended for the target service level beside the mean agents staffed, per line' })
  @ApiErrors(400, 401, 403, 404)
  staffing(@CurrentPrincipal() principal: Principal, @Query() query: DashboardQueryDto): Promise<StaffingRow[]> {
    return this.dashboards.staffing(principal.clientId, filters(query, principal));
  }

  @Get('active-by-agent')
  @RequirePermission(PERMISSIONS.dashboardSupervise)
  @ApiOperation({ summary: 'Live: conversations each logged-in agent holds now, with capacity' })
  @ApiErrors(400, 401, 403, 404)
  activeByAgent(@CurrentPrincipal() principal: Principal, @Query() query: ActiveQueryDto): Promise<ActiveByAgentRow[]> {
    return this.dashboards.activeByAgent(principal.clientId, query.agentId);
  }

  @Get('sentiment')
  @RequirePermission(PERMISSIONS.dashboardSupervise)
  @ApiOperation({ summary: 'Customer sentiment by line, agent and over time; open conversations turning negative' })
  @ApiErrors(400, 401, 403, 404)
  sentiment(@CurrentPrincipal() principal: Principal, @Query() query: DashboardQueryDto): Promise<SentimentReport> {
    return this.dashboards.sentiment(principal.clientId, filters(query, principal));
  }

  @Get('options')
  @RequirePermission(PERMISSIONS.dashboardView)
  @ApiOperation({ summary: "The filter bar's lines, campaigns, agents and channels" })
  @ApiErrors(401, 403)
  options(@CurrentPrincipal() principal: Principal): Promise<DashboardOptions> {
    return this.dashboards.options(principal);
  }

  @Get('positions')
  @RequirePermission(PERMISSIONS.dashboardSupervise)
  @ApiOperation({ summary: 'Live position board: queued conversations in serving order per line' })
  @ApiErrors(400, 401, 403)
  positions(@CurrentPrincipal() principal: Principal, @Query() query: PositionsQueryDto): Promise<QueuePositionRow[]> {
    return this.dashboards.positions(principal.clientId, query.attentionLineId);
  }
}
