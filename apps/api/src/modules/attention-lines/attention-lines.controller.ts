import {
  ATTENTION_LINE_CHANNELS,
  ATTENTION_LINE_TYPES,
  LINE_PRIORITY_MAX,
  LINE_QUEUE_TIMEOUT_RANGE,
  LINE_CHATS_DURING_CALL_MAX,
  PERMISSIONS,
  ROUTING_POLICIES,
  type RoutingPolicyName,
  type AttentionLineInput,
  type AttentionLineSummary,
  type BusinessHoursWindow,
  type OptionItem,
  type Page,
} from '@centralita/contracts';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsOptional, IsString, IsUUID, ValidateNested } from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { Trim } from '../../common/transforms';
import { PagedQueryDto } from '../admin/paged-query.dto';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { AttentionLinesService } from './attention-lines.service';

class BusinessHoursWindowDto implements BusinessHoursWindow {
  @ApiProperty({ minimum: 0, maximum: 6, description: '0 = Sunday' }) @IsInt() day!: number;
  @ApiProperty({ example: '08:00' }) @IsString() from!: string;
  @ApiProperty({ example: '17:00' }) @IsString() to!: string;
}

/** Types only; validateAttentionLine() (shared with the console) holds the rules. */
export class AttentionLineInputDto implements Partial<AttentionLineInput> {
  @ApiProperty() @IsOptional() @Trim() @IsString() name?: string;
  @ApiProperty({ enum: ATTENTION_LINE_TYPES }) @IsOptional() @IsString() type?: string;
  @ApiProperty({ enum: ATTENTION_LINE_CHANNELS }) @IsOptional() @IsString() channel?: string;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() businessUnit?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() originType?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() originLine?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() serviceType?: string | null;
  @ApiPropertyOptional({ description: 'true: serves internal staff; false: external customers' })
  @IsOptional()
  @IsBoolean()
  internal?: boolean;
  @ApiPropertyOptional({ type: [BusinessHoursWindowDto], description: 'Empty = always open' })
  @IsOptional()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => BusinessHoursWindowDto)
  @IsArray()
  businessHours?: BusinessHoursWindowDto[];
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'Post-conversation poll' })
  @IsOptional()
  @IsUUID()
  pollId?: string | null;
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'Campaign whose live queue counts this line' })
  @IsOptional()
  @IsUUID()
  campaignId?: string | null;
  @ApiPropertyOptional({ enum: ROUTING_POLICIES, default: 'longest-idle', description: 'Who gets the next customer' })
  @IsOptional()
  @IsString()
  routingPolicy?: RoutingPolicyName;
  @ApiPropertyOptional({ minimum: 0, maximum: LINE_PRIORITY_MAX, default: 0, description: 'Higher is served first' })
  @IsOptional()
  @IsInt()
  priority?: number;
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: LINE_QUEUE_TIMEOUT_RANGE.min,
    maximum: LINE_QUEUE_TIMEOUT_RANGE.max,
    description: "Seconds a customer may wait in the queue; null = the account's maximum queue wait",
  })
  @IsOptional()
  @IsInt()
  queueTimeoutSeconds?: number | null;
  @ApiPropertyOptional({
    minimum: 0,
    maximum: LINE_CHATS_DURING_CALL_MAX,
    default: 0,
    description: 'Blended agents: chats an agent on one of this line’s calls may hold at most (0 = none)',
  })
  @IsOptional()
  @IsInt()
  chatsDuringCall?: number;
  @ApiPropertyOptional({ default: false, description: 'Blended agents: offer this line’s calls to agents who hold chats' })
  @IsOptional()
  @IsBoolean()
  offerCallsWithChats?: boolean;
}

class AttentionLineOptionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
}

export class AttentionLineSummaryDto extends AttentionLineInputDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class AttentionLinePageDto {
  @ApiProperty({ type: [AttentionLineSummaryDto] }) items!: AttentionLineSummaryDto[];
  @ApiProperty() total!: number;
  @ApiProperty() page!: number;
  @ApiProperty() pageSize!: number;
}

@ApiTags('attention-lines')
@ApiBearerAuth()
@Controller('attention-lines')
export class AttentionLinesController {
  constructor(private readonly lines: AttentionLinesService) {}

  @Get()
  @RequirePermission(PERMISSIONS.attentionLinesManage)
  @ApiOperation({ summary: 'Attention lines, paged; sortField: name, type, channel, businessUnit, serviceType, internal' })
  @ApiEnvelope(AttentionLinePageDto)
  @ApiErrors(400, 401, 403)
  list(@Query() query: PagedQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<AttentionLineSummary>> {
    return this.lines.list(principal.clientId, query);
  }

  @Get('options')
  @RequirePermission(PERMISSIONS.attentionLinesManage, PERMISSIONS.predefinedMessagesManage, PERMISSIONS.usersManage)
  @ApiOperation({ summary: "Id and name of the tenant's attention lines, for pickers" })
  @ApiEnvelope([AttentionLineOptionDto])
  @ApiErrors(401, 403)
  options(@CurrentPrincipal() principal: Principal): Promise<OptionItem[]> {
    return this.lines.options(principal.clientId);
  }

  @Get(':id')
  @RequirePermission(PERMISSIONS.attentionLinesManage)
  @ApiOperation({ summary: "One attention line; another tenant's id answers 404" })
  @ApiEnvelope(AttentionLineSummaryDto)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<AttentionLineSummary> {
    return this.lines.get(principal.clientId, id);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.attentionLinesManage)
  @ApiOperation({ summary: 'Creates an attention line' })
  @ApiEnvelope(AttentionLineSummaryDto)
  @ApiErrors(400, 401, 403, 409)
  create(@Body() body: AttentionLineInputDto, @CurrentPrincipal() principal: Principal): Promise<AttentionLineSummary> {
    return this.lines.create(principal, body);
  }

  @Put(':id')
  @RequirePermission(PERMISSIONS.attentionLinesManage)
  @ApiOperation({ summary: 'Replaces an attention line' })
  @ApiEnvelope(AttentionLineSummaryDto)
  @ApiErrors(400, 401, 403, 404, 409)
  update(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: AttentionLineInputDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<AttentionLineSummary> {
    return this.lines.update(principal, id, body);
  }

  @Delete(':id')
  @RequirePermission(PERMISSIONS.attentionLinesManage)
  @ApiOperation({ summary: 'Soft-deletes an attention line (conversations keep referring to it); agents stop serving it' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  remove(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ deleted: true }> {
    return this.lines.remove(principal, id);
  }
}
