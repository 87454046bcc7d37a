import {
  PERMISSIONS,
  REPORT_TYPES,
  languageFromAcceptLanguage,
  type ConversationDetail,
  type ReportExportState,
  type ReportOptions,
  type ReportPage,
  type ReportType,
} from '@centralita/contracts';
import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  HttpStatus,
  Injectable,
  Param,
  Post,
  Query,
  StreamableFile,
  type PipeTransform,
} from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { AppException } from '../../common/app.exception';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { DetailDownloadQueryDto, ReportPageQueryDto, StartExportDto } from './reports.dto';
import { ReportsService } from './reports.service';

/** `:type` is one of REPORT_TYPES; anything else is a 400 naming the parameter. */
@Injectable()
export class ParseReportTypePipe implements PipeTransform<string, ReportType> {
  transform(value: string): ReportType {
    if (!(REPORT_TYPES as readonly string[]).includes(value))
      throw new AppException('validation', {
        message: `type must be one of ${REPORT_TYPES.join(', ')}`,
        data: { fields: { type: [`type must be one of ${REPORT_TYPES.join(', ')}`] } },
      });
    return value as ReportType;
  }
}

const CONTENT_TYPES = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  txt: 'text/plain; charset=utf-8',
} as const;

@ApiTags('reports')
@ApiBearerAuth()
@Controller('reports')
@RequirePermission(PERMISSIONS.reportsView)
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Get('options')
  @ApiOperation({ summary: "The filter pickers of the reports page: the tenant's lines, campaigns, dialer campaigns, agents and channels" })
  @ApiEnvelope(null)
  @ApiErrors(401, 403)
  options(@CurrentPrincipal() principal: Principal): Promise<ReportOptions> {
    return this.reports.options(principal.clientId);
  }

  @Get('exports/:id')
  @ApiOperation({ summary: 'Status and progress (0..100) of an export' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  exportState(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<ReportExportState> {
    return this.reports.exportState(principal.clientId, id);
  }

  @Get('exports/:id/download')
  @ApiOperation({ summary: 'The finished file (CSV or XLSX attachment, streamed; not enveloped); 409 while not ready' })
  @ApiErrors(400, 401, 403, 404, 409)
  async download(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<StreamableFile> {
    const file = await this.reports.download(principal.clientId, id);
    return new StreamableFile(file.stream, {
      type: CONTENT_TYPES[file.format],
      disposition: `attachment; filename="${file.fileName}"`,
      length: file.byteSize,
    });
  }

  @Get('conversations/:id/detail')
  @ApiOperation({ summary: 'One conversation: transcript, status changes, agents, line and survey answers' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  detail(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<ConversationDetail> {
    return this.reports.conversationDetail(principal.clientId, id);
  }

  @Get('conversations/:id/detail/download')
  @ApiOperation({ summary: 'The conversation detail as a text transcript (format=txt) or CSV (format=csv) attachment' })
  @ApiHeader({
    name: 'Accept-Language',
    required: false,
    description: 'Language of the labels and headers (es en el it sr de ru; default es)',
  })
  @ApiErrors(400, 401, 403, 404)
  async detailDownload(
    @Param('id', ParseUuidPipe) id: string,
    @Query() query: DetailDownloadQueryDto,
    @CurrentPrincipal() principal: Principal,
    @Headers('accept-language') acceptLanguage: string | undefined,
  ): Promise<StreamableFile> {
    const format = query.format ?? 'txt';
    const file = await this.reports.conversationDetailFile(principal.clientId, id, format, languageFromAcceptLanguage(acceptLanguage));
    return new StreamableFile(Buffer.from(format === 'csv' ? `\uFEFF${file.body}` : file.body, 'utf8'), {
      type: CONTENT_TYPES[format],
      disposition: `attachment; filename="${file.fileName}"`,
    });
  }

  @Get(':type')
  @ApiOperation({ summary: 'One page of a report for [from, to) and the filters; sortField: a sortable column of the type' })
  @ApiParam({ name: 'type', enum: REPORT_TYPES })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403)
  page(
    @Param('type', ParseReportTypePipe) type: ReportType,
    @Query() query: ReportPageQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ReportPage> {
    return this.reports.page(principal, type, query);
  }

  @Post(':type/exports')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Queues an export of the whole report as CSV or XLSX; poll GET exports/:id, then download' })
  @ApiParam({ name: 'type', enum: REPORT_TYPES })
  @ApiHeader({ name: 'Accept-Language', required: false, description: 'Language of the column headers (es en el it sr de ru; default es)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403)
  startExport(
    @Param('type', ParseReportTypePipe) type: ReportType,
    @Body() body: StartExportDto,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ReportExportState> {
    return this.reports.startExport(principal, type, body, languageFromAcceptLanguage(acceptLanguage));
  }
}
