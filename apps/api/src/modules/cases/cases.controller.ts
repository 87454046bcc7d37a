import {
  PERMISSIONS,
  PHONE_IMPORT_LIMITS,
  languageFromAcceptLanguage,
  type CaseDetail,
  type CaseOptions,
  type CaseSummary,
  type CaseTranscript,
  type ConversationCase,
  type GeoArea,
  type GeoImportState,
  type Page,
} from '@centralita/contracts';
import { Body, Controller, Delete, Get, Headers, HttpCode, HttpStatus, Param, Post, Put, Query, Req, StreamableFile } from '@nestjs/common';
import type { Request } from 'express';
import { FILE_UPLOAD_TYPES, readRawUpload } from '../../common/raw-upload';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { caseCsv, caseXlsx } from './case-export';
import {
  ActivityDoneDto,
  AssigneeDto,
  CaseActivityDto,
  CaseExportQueryDto,
  CaseInputDto,
  CaseListQueryDto,
  CaseNoteDto,
  CreateCaseDto,
  GeoImportQueryDto,
  GeoQueryDto,
  LinkConversationDto,
} from './cases.dto';
import { CasesService } from './cases.service';

@ApiTags('cases')
@ApiBearerAuth()
@RequirePermission(PERMISSIONS.crmUse)
@Controller('cases')
export class CasesController {
  constructor(private readonly cases: CasesService) {}

  @Get()
  @ApiOperation({
    summary:
      'Cases, paged and filtered; q matches code, subject, description and contact; sortField: code, subject, status, createdAt, updatedAt, contactName',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403)
  list(@Query() query: CaseListQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<CaseSummary>> {
    return this.cases.list(principal.clientId, query);
  }

  @Get('options')
  @ApiOperation({ summary: "The tenant's case types, identification types, provinces and users (catalogues are seeded on first use)" })
  @ApiEnvelope(null)
  @ApiErrors(401, 403)
  options(@CurrentPrincipal() principal: Principal): Promise<CaseOptions> {
    return this.cases.options(principal.clientId);
  }

  @Get('geo')
  @ApiOperation({ summary: 'Provinces, the cantons of a province or the districts of a canton' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403)
  geo(@Query() query: GeoQueryDto, @CurrentPrincipal() principal: Principal): Promise<GeoArea[]> {
    return this.cases.geo(principal.clientId, query.level, query.parentId ?? null);
  }

  @Post('geo/imports')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary:
      'Uploads an xlsx or csv of provinces, cantons and districts (header row: province, canton, district, optional codes; raw body ≤ 5 MB) and queues its import; poll GET geo/imports/:id',
  })
  @ApiConsumes(...FILE_UPLOAD_TYPES)
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 413, 415)
  async importGeo(
    @Query() query: GeoImportQueryDto,
    @Req() req: Request,
    @CurrentPrincipal() principal: Principal,
  ): Promise<GeoImportState> {
    const file = await readRawUpload(req, PHONE_IMPORT_LIMITS.maxFileBytes);
    return this.cases.startGeoImport(principal, query.fileName ?? 'upload', file);
  }

  @Get('geo/imports/:id')
  @ApiOperation({ summary: 'How a geographic import went: status, areas written, line-by-line problems' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  geoImport(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<GeoImportState> {
    return this.cases.geoImport(principal.clientId, id);
  }

  @Get('export')
  @ApiOperation({ summary: 'The filtered cases as a CSV or xlsx download (not enveloped; at most 50,000 rows)' })
  @ApiHeader({ name: 'Accept-Language', required: false, description: 'Language of the column headers (es en el it sr de ru; default es)' })
  @ApiErrors(400, 401, 403)
  async export(
    @Query() query: CaseExportQueryDto,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @CurrentPrincipal() principal: Principal,
  ): Promise<StreamableFile> {
    const { format, ...filters } = query;
    const rows = await this.cases.exportRows(principal.clientId, filters);
    const language = languageFromAcceptLanguage(acceptLanguage);
    const stamp = new Date().toISOString().slice(0, 10);
    if (format === 'csv')
      return new StreamableFile(Buffer.from(caseCsv(rows, language), 'utf8'), {
        type: 'text/csv; charset=utf-8',
        disposition: `attachment; filename="cases-${stamp}.csv"`,
      });
    return new StreamableFile(caseXlsx(rows, language), {
      type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      disposition: `attachment; filename="cases-${stamp}.xlsx"`,
    });
  }

  @Get('by-conversation/:conversationId')
  @ApiOperation({ summary: "The case a conversation is linked to, or the contact's data to start one" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  byConversation(
    @Param('conversationId', ParseUuidPipe) conversationId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ConversationCase> {
    return this.cases.byConversation(principal.clientId, conversationId);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Creates a case (code from the tenant sequence), optionally linked to a conversation' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  create(@Body() body: CreateCaseDto, @CurrentPrincipal() principal: Principal): Promise<CaseDetail> {
    return this.cases.create(principal, body);
  }

  @Get(':id')
  @ApiOperation({ summary: "A case with its notes, activities, assignees, conversations and history; another tenant's id answers 404" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<CaseDetail> {
    return this.cases.detail(principal.clientId, id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Changes the fields given; each change is written to the history (old → new)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  update(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: CaseInputDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CaseDetail> {
    return this.cases.update(principal, id, body);
  }

  @Post(':id/notes')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Adds a note, mentioning users of the tenant' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  addNote(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: CaseNoteDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CaseDetail> {
    return this.cases.addNote(principal, id, body.text, body.mentions);
  }

  @Post(':id/activities')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Adds a call, task or meeting with an optional due date and assignee' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  addActivity(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: CaseActivityDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CaseDetail> {
    return this.cases.addActivity(principal, id, body);
  }

  @Put(':id/activities/:activityId')
  @ApiOperation({ summary: 'Marks an activity done or not done' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  setActivityDone(
    @Param('id', ParseUuidPipe) id: string,
    @Param('activityId', ParseUuidPipe) activityId: string,
    @Body() body: ActivityDoneDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CaseDetail> {
    return this.cases.setActivityDone(principal, id, activityId, body.done);
  }

  @Post(':id/assignees')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Adds an agent to the people working the case' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  assign(@Param('id', ParseUuidPipe) id: string, @Body() body: AssigneeDto, @CurrentPrincipal() principal: Principal): Promise<CaseDetail> {
    return this.cases.assign(principal, id, body.userId);
  }

  @Delete(':id/assignees/:userId')
  @ApiOperation({ summary: 'Removes an agent from the case' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  unassign(
    @Param('id', ParseUuidPipe) id: string,
    @Param('userId', ParseUuidPipe) userId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CaseDetail> {
    return this.cases.unassign(principal, id, userId);
  }

  @Post(':id/conversations')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Links a conversation (a conversation belongs to one case: 409 when linked elsewhere)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  link(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: LinkConversationDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CaseDetail> {
    return this.cases.link(principal, id, body.conversationId);
  }

  @Delete(':id/conversations/:conversationId')
  @ApiOperation({ summary: 'Unlinks a conversation' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  unlink(
    @Param('id', ParseUuidPipe) id: string,
    @Param('conversationId', ParseUuidPipe) conversationId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CaseDetail> {
    return this.cases.unlink(principal, id, conversationId);
  }

  @Get(':id/conversations/:conversationId/transcript')
  @ApiOperation({ summary: "A linked conversation's messages, with its recordings where any exist" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  transcript(
    @Param('id', ParseUuidPipe) id: string,
    @Param('conversationId', ParseUuidPipe) conversationId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CaseTranscript> {
    return this.cases.transcript(principal.clientId, id, conversationId);
  }
}
