import {
  MAIL_BLACKLIST_LIMITS,
  MAIL_BLACKLIST_REASONS,
  PERMISSIONS,
  type MailBlacklistEntry,
  type MailBlacklistImportResult,
  type MailBlacklistReason,
  type Page,
} from '@centralita/contracts';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import type { Request } from 'express';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { readRawUpload } from '../../common/raw-upload';
import { PagedQueryDto } from '../admin/paged-query.dto';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { MailBlacklistService } from './mail-blacklist.service';

/** Types only: the service checks the address and names the field in each 400. */
export class MailBlacklistInputDto {
  @ApiProperty({ maxLength: MAIL_BLACKLIST_LIMITS.addressMax, example: 'someone@example.com' }) @IsOptional() @IsString() address?: string;
  @ApiPropertyOptional({ enum: MAIL_BLACKLIST_REASONS, default: 'manual' })
  @IsOptional()
  @IsIn(MAIL_BLACKLIST_REASONS)
  reason?: MailBlacklistReason;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: MAIL_BLACKLIST_LIMITS.noteMax }) @IsOptional() @IsString() note?:
    string | null;
}

export class MailBlacklistQueryDto extends PagedQueryDto {
  @ApiPropertyOptional({ enum: MAIL_BLACKLIST_REASONS }) @IsOptional() @IsIn(MAIL_BLACKLIST_REASONS) reason?: MailBlacklistReason;
}

export class MailBlacklistEntryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() address!: string;
  @ApiProperty({ enum: MAIL_BLACKLIST_REASONS }) reason!: MailBlacklistReason;
  @ApiProperty({ description: "Where it came from: 'link', 'one-click', 'mailto', 'admin', 'import', 'smtp'" }) source!: string;
  @ApiProperty({ type: String, nullable: true }) note!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) createdBy!: string | null;
  @ApiProperty({ type: String, nullable: true }) createdByName!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class MailBlacklistPageDto {
  @ApiProperty({ type: [MailBlacklistEntryDto] }) items!: MailBlacklistEntryDto[];
  @ApiProperty() total!: number;
  @ApiProperty() page!: number;
  @ApiProperty() pageSize!: number;
}

export class MailBlacklistImportDto {
  @ApiProperty() added!: number;
  @ApiProperty() alreadyListed!: number;
  @ApiProperty({ type: 'array', items: { type: 'object', properties: { line: { type: 'number' }, value: { type: 'string' } } } })
  invalid!: { line: number; value: string }[];
}

const IMPORT_LIMIT_BYTES = 512 * 1024;

/** The caller's organisation's mail blacklist (permission settings.manage, as the channel settings). */
@ApiTags('mail-blacklist')
@ApiBearerAuth()
@Controller('mail-blacklist')
export class MailBlacklistController {
  constructor(private readonly blacklist: MailBlacklistService) {}

  @Get()
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({ summary: 'Listed addresses, newest first; q searches address and note; sortField: createdAt, address, reason, source' })
  @ApiEnvelope(MailBlacklistPageDto)
  @ApiErrors(400, 401, 403)
  list(@Query() query: MailBlacklistQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<MailBlacklistEntry>> {
    return this.blacklist.list(principal.clientId, query);
  }

  @Get(':id')
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({ summary: "One entry; another tenant's id answers 404" })
  @ApiEnvelope(MailBlacklistEntryDto)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<MailBlacklistEntry> {
    return this.blacklist.get(principal.clientId, id);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({ summary: 'Lists an address (stored lower-case); 409 when it is already listed' })
  @ApiEnvelope(MailBlacklistEntryDto)
  @ApiErrors(400, 401, 403, 409)
  add(@Body() body: MailBlacklistInputDto, @CurrentPrincipal() principal: Principal): Promise<MailBlacklistEntry> {
    return this.blacklist.add(principal, body);
  }

  @Post('import')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({
    summary:
      'CSV or plain list as the raw body (text/csv or text/plain, ≤ 512 kB, ≤ 5000 lines): one address per line or an "email" column',
  })
  @ApiConsumes('text/csv', 'text/plain')
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiEnvelope(MailBlacklistImportDto)
  @ApiErrors(400, 401, 403, 413, 415)
  async import(@Req() request: Request, @CurrentPrincipal() principal: Principal): Promise<MailBlacklistImportResult> {
    const raw = await readRawUpload(request, IMPORT_LIMIT_BYTES, ['text/csv', 'text/plain', 'application/octet-stream']);
    return this.blacklist.importCsv(principal, raw.toString('utf8'));
  }

  @Delete(':id')
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({ summary: 'Takes an address off the list: mail to it may be sent again' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  remove(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ deleted: true }> {
    return this.blacklist.remove(principal, id);
  }
}
