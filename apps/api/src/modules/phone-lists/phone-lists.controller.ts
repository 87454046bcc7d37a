import {
  PERMISSIONS,
  languageFromAcceptLanguage,
  type Page,
  type PhoneImportState,
  type PhoneListEntry,
  type PhoneListSummary,
} from '@centralita/contracts';
import { Controller, Delete, Get, Headers, HttpCode, HttpStatus, Param, Post, Query, Req, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiHeader, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { IsNotEmpty, IsOptional, IsString, Length, Matches } from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { FILE_UPLOAD_TYPES, readRawUpload } from '../../common/raw-upload';
import { Trim } from '../../common/transforms';
import { PagedQueryDto } from '../admin/paged-query.dto';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { MAX_UPLOAD_BYTES, PhoneListsService } from './phone-lists.service';

export class ImportQueryDto {
  @ApiProperty({ description: 'Name of the new phone list' }) @Trim() @Length(1, 160) @IsNotEmpty() @IsString() name!: string;
  @ApiPropertyOptional() @IsOptional() @Length(0, 255) @IsString() fileName?: string;
  @ApiPropertyOptional({ example: 'CR', description: 'ISO country of numbers written without +' })
  @IsOptional()
  @Matches(/^[A-Za-z]{2}$/)
  @IsString()
  defaultCountry?: string;
}

@ApiTags('phone-lists')
@ApiBearerAuth()
@Controller('phone-lists')
export class PhoneListsController {
  constructor(private readonly lists: PhoneListsService) {}

  @Get()
  @RequirePermission(PERMISSIONS.listsManage)
  @ApiOperation({ summary: 'Phone lists, paged; sortField: name, entryCount, createdAt' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403)
  list(@Query() query: PagedQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<PhoneListSummary>> {
    return this.lists.list(principal.clientId, query);
  }

  @Post('imports')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.listsManage)
  @ApiOperation({
    summary:
      'Uploads an xlsx or csv (raw body, ≤ 5 MB; another Content-Type answers 415 at once) and queues its import; poll GET imports/:id for progress',
  })
  @ApiConsumes(...FILE_UPLOAD_TYPES)
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 413, 415)
  async startImport(
    @Query() query: ImportQueryDto,
    @Req() req: Request,
    @CurrentPrincipal() principal: Principal,
  ): Promise<PhoneImportState> {
    const file = await readRawUpload(req, MAX_UPLOAD_BYTES);
    return this.lists.startImport(
      principal,
      { name: query.name, fileName: query.fileName ?? 'upload', defaultCountry: query.defaultCountry },
      file,
    );
  }

  @Get('imports/:id')
  @RequirePermission(PERMISSIONS.listsManage)
  @ApiOperation({ summary: 'Status and progress (0..100) of an import' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  importState(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<PhoneImportState> {
    return this.lists.importState(principal.clientId, id);
  }

  @Get('imports/:id/errors.csv')
  @RequirePermission(PERMISSIONS.listsManage)
  @ApiOperation({ summary: 'Line-by-line problems of an import, as a CSV download (not enveloped)' })
  @ApiHeader({
    name: 'Accept-Language',
    required: false,
    description: 'Language of the headers and reasons (es en el it sr de ru; default es)',
  })
  @ApiErrors(400, 401, 403, 404)
  async errorFile(
    @Param('id', ParseUuidPipe) id: string,
    @CurrentPrincipal() principal: Principal,
    @Headers('accept-language') acceptLanguage: string | undefined,
  ): Promise<StreamableFile> {
    const csv = await this.lists.errorFile(principal.clientId, id, languageFromAcceptLanguage(acceptLanguage));
    return new StreamableFile(Buffer.from(`\uFEFF${csv}`, 'utf8'), {
      type: 'text/csv; charset=utf-8',
      disposition: 'attachment; filename="import-errors.csv"',
    });
  }

  @Get(':id')
  @RequirePermission(PERMISSIONS.listsManage)
  @ApiOperation({ summary: "One phone list; another tenant's id answers 404" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<PhoneListSummary> {
    return this.lists.get(principal.clientId, id);
  }

  @Get(':id/entries')
  @RequirePermission(PERMISSIONS.listsManage)
  @ApiOperation({ summary: 'Numbers (E.164) of a list, paged; sortField: phone, name, line' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  entries(
    @Param('id', ParseUuidPipe) id: string,
    @Query() query: PagedQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<Page<PhoneListEntry>> {
    return this.lists.entries(principal.clientId, id, query);
  }

  @Delete(':id')
  @RequirePermission(PERMISSIONS.listsManage)
  @ApiOperation({ summary: 'Soft-deletes a phone list' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  remove(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ deleted: true }> {
    return this.lists.remove(principal, id);
  }
}
