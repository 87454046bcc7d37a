import {
  INBOUND_TARGET_TYPES,
  PERMISSIONS,
  TRUNK_LIMITS,
  TRUNK_TRANSPORTS,
  type InboundNumber,
  type Page,
  type TrunkInput,
  type TrunkSummary,
} from '@centralita/contracts';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString } from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { PagedQueryDto } from '../admin/paged-query.dto';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { InboundNumbersService } from './inbound-numbers.service';
import { TrunksService } from './trunks.service';

/** Types only; validateInboundNumber() (shared with the console) holds the rules. */
export class InboundNumberInputDto {
  @ApiProperty({ description: 'E.164 called number (+34911234567); spaces and dashes are dropped' })
  @IsOptional()
  @IsString()
  number?: string;
  @ApiProperty({ enum: INBOUND_TARGET_TYPES }) @IsOptional() @IsString() targetType?: string;
  @ApiProperty({ format: 'uuid', description: 'IVR id (ivr) or attention line id (line) of the tenant' })
  @IsOptional()
  @IsString()
  targetId?: string;
}

class InboundNumberDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) trunkId!: string;
  @ApiProperty({ example: '+34911234567' }) number!: string;
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) ivrId!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) attentionLineId!: string | null;
  @ApiProperty({ type: String, nullable: true }) targetName!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

/** Types only; validateTrunk() (shared with the console) holds the rules. */
export class TrunkInputDto implements Partial<Omit<TrunkInput, 'port' | 'maxConcurrentCalls'>> {
  @ApiProperty({ maxLength: TRUNK_LIMITS.nameMax }) @IsOptional() @IsString() name?: string;
  @ApiProperty({ description: 'Hostname or IP address', maxLength: TRUNK_LIMITS.hostMax }) @IsOptional() @IsString() host?: string;
  @ApiPropertyOptional({ minimum: 1, maximum: 65535, default: TRUNK_LIMITS.defaultPort }) @IsOptional() @IsInt() port?: number;
  @ApiPropertyOptional({ enum: TRUNK_TRANSPORTS, default: 'udp' }) @IsOptional() @IsString() transport?: (typeof TRUNK_TRANSPORTS)[number];
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() username?: string | null;
  @ApiPropertyOptional({ writeOnly: true, description: 'Stored encrypted, never answered; empty on edit keeps the current one' })
  @IsOptional()
  @IsString()
  password?: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'E.164 (+ and up to 15 digits) or digits' })
  @IsOptional()
  @IsString()
  callerId?: string | null;
  @ApiProperty({ minimum: 1, maximum: TRUNK_LIMITS.maxConcurrentCalls }) @IsOptional() @IsInt() maxConcurrentCalls?: number;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() active?: boolean;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Country calling code of the trunk\'s numbers (1-3 digits, no "+"): called numbers in national format are read with it',
  })
  @IsOptional()
  @IsString()
  countryCode?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'National trunk prefix (1-2 digits, e.g. "0"); needs countryCode' })
  @IsOptional()
  @IsString()
  nationalPrefix?: string | null;
  @ApiPropertyOptional({
    type: [String],
    maxItems: TRUNK_LIMITS.allowedSourcesMax,
    description:
      "IP addresses and CIDR networks the carrier's INVITEs for this trunk's numbers may come from (others get 403); empty = the trunk's host only",
  })
  @IsOptional()
  allowedSources?: string[];
}

class TrunkSummaryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() host!: string;
  @ApiProperty() port!: number;
  @ApiProperty({ enum: TRUNK_TRANSPORTS }) transport!: string;
  @ApiProperty({ type: String, nullable: true }) username!: string | null;
  @ApiProperty({ description: 'A secret is stored (it is never answered)' }) hasPassword!: boolean;
  @ApiProperty({ type: String, nullable: true }) callerId!: string | null;
  @ApiProperty() maxConcurrentCalls!: number;
  @ApiProperty() active!: boolean;
  @ApiProperty({ type: String, nullable: true }) countryCode!: string | null;
  @ApiProperty({ type: String, nullable: true }) nationalPrefix!: string | null;
  @ApiProperty({ type: [String] }) allowedSources!: string[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}
class TrunkPageDto {
  @ApiProperty({ type: [TrunkSummaryDto] }) items!: TrunkSummaryDto[];
  @ApiProperty() total!: number;
  @ApiProperty() page!: number;
  @ApiProperty() pageSize!: number;
}

@ApiTags('trunks')
@ApiBearerAuth()
@Controller('trunks')
export class TrunksController {
  constructor(
    private readonly trunks: TrunksService,
    private readonly numbers: InboundNumbersService,
  ) {}

  @Get(':id/numbers')
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: "The called numbers this trunk answers, each sent to an IVR or a line; another tenant's trunk answers 404" })
  @ApiEnvelope([InboundNumberDto])
  @ApiErrors(400, 401, 403, 404)
  listNumbers(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<InboundNumber[]> {
    return this.numbers.list(principal.clientId, id);
  }

  @Post(':id/numbers')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({
    summary:
      'Adds an inbound number (E.164, unique across the platform) sent to an IVR or an attention line; 409 when it is taken ("this number is not available" when another organisation has it)',
  })
  @ApiEnvelope(InboundNumberDto)
  @ApiErrors(400, 401, 403, 404, 409)
  addNumber(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: InboundNumberInputDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<InboundNumber> {
    return this.numbers.add(principal, id, body);
  }

  @Delete(':id/numbers/:numberId')
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: 'Removes an inbound number from the trunk (calls to it are no longer answered)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  removeNumber(
    @Param('id', ParseUuidPipe) id: string,
    @Param('numberId', ParseUuidPipe) numberId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ deleted: true }> {
    return this.numbers.remove(principal, id, numberId);
  }

  @Get()
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: 'SIP trunks, paged; sortField: name, host, transport, maxConcurrentCalls, active, updatedAt' })
  @ApiEnvelope(TrunkPageDto)
  @ApiErrors(400, 401, 403)
  list(@Query() query: PagedQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<TrunkSummary>> {
    return this.trunks.list(principal.clientId, query);
  }

  @Get(':id')
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: "One trunk (secret as hasPassword only); another tenant's id answers 404" })
  @ApiEnvelope(TrunkSummaryDto)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<TrunkSummary> {
    return this.trunks.get(principal.clientId, id);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: 'Creates a trunk (host name or IP, port 1-65535, transport udp/tcp/tls/ws/wss, calls 1-1000)' })
  @ApiEnvelope(TrunkSummaryDto)
  @ApiErrors(400, 401, 403, 409)
  create(@Body() body: TrunkInputDto, @CurrentPrincipal() principal: Principal): Promise<TrunkSummary> {
    return this.trunks.create(principal, body);
  }

  @Put(':id')
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: 'Replaces a trunk; an empty password keeps the stored one' })
  @ApiEnvelope(TrunkSummaryDto)
  @ApiErrors(400, 401, 403, 404, 409)
  update(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: TrunkInputDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TrunkSummary> {
    return this.trunks.update(principal, id, body);
  }

  @Delete(':id')
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: 'Soft-deletes a trunk' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  remove(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ deleted: true }> {
    return this.trunks.remove(principal, id);
  }
}
