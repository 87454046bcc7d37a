import { REPORT_EXPORT_FORMATS, REPORT_MAX_PAGE_SIZE, type ReportExportFormat, type SortOrder } from '@centralita/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsNotEmpty, IsOptional, IsString, IsUUID, Length } from 'class-validator';
import { Trim } from '../../common/transforms';
import { PageNumber, PageSize, SortField } from '../admin/paged-query.dto';

/** Window and filters shared by a report page and an export. */
export class ReportFiltersDto {
  @ApiProperty({ example: '2026-01-01T00:00:00Z', description: 'Start of the window (inclusive), ISO-8601' })
  @IsISO8601({ strict: true })
  @IsNotEmpty()
  from!: string;

  @ApiProperty({ example: '2026-02-01T00:00:00Z', description: 'End of the window (exclusive), ISO-8601, after `from`' })
  @IsISO8601({ strict: true })
  @IsNotEmpty()
  to!: string;

  @ApiPropertyOptional() @IsOptional() @IsUUID() attentionLineId?: string;
  @ApiPropertyOptional() @IsOptional() @IsUUID() campaignId?: string;
  @ApiPropertyOptional() @IsOptional() @IsUUID() agentId?: string;
  @ApiPropertyOptional({ example: 'webchat' }) @IsOptional() @Trim() @Length(1, 40) @IsString() channel?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Conversations report: only those that left a voicemail' })
  @IsOptional()
  @IsIn(['true', 'false'])
  voicemail?: 'true' | 'false';
}

export class ReportPageQueryDto extends ReportFiltersDto {
  @PageNumber() page?: number;

  @PageSize(REPORT_MAX_PAGE_SIZE)
  pageSize?: number;

  @SortField("A column marked sortable in the report's columns; unknown names answer 400")
  sortField?: string;

  @ApiPropertyOptional({ enum: ['asc', 'desc'] }) @IsOptional() @IsIn(['asc', 'desc']) sortOrder?: SortOrder;
}

export class StartExportDto extends ReportFiltersDto {
  @ApiProperty({ enum: REPORT_EXPORT_FORMATS }) @IsIn(REPORT_EXPORT_FORMATS) format!: ReportExportFormat;
}

export class DetailDownloadQueryDto {
  @ApiPropertyOptional({ enum: ['txt', 'csv'], default: 'txt' }) @IsOptional() @IsIn(['txt', 'csv']) format?: 'txt' | 'csv';
}
