import { REPORT_EXPORT_FORMATS, REPORT_MAX_PAGE_SIZE, type ReportExportFormat, type SortOrder } from '@centralita/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsNotEmpty, IsOptional, IsString, IsUUID, Length, Matches, Max, Min } from 'class-validator';
import { Trim } from '../../common/transforms';

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
}

export class ReportPageQueryDto extends ReportFiltersDto {
  @ApiPropertyOptional({ minimum: 1, default: 1 }) @IsOptional() @Type(() => Number) @Min(1) @IsInt() page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: REPORT_MAX_PAGE_SIZE, default: 25 })
  @IsOptional()
  @Type(() => Number)
  @Max(REPORT_MAX_PAGE_SIZE)
  @Min(1)
  @IsInt()
  pageSize?: number;

  @ApiPropertyOptional({ description: "A column marked sortable in the report's columns; unknown names answer 400" })
  @IsOptional()
  @Matches(/^[A-Za-z]{1,40}$/)
  @IsString()
  sortField?: string;

  @ApiPropertyOptional({ enum: ['asc', 'desc'] }) @IsOptional() @IsIn(['asc', 'desc']) sortOrder?: SortOrder;
}

export class StartExportDto extends ReportFiltersDto {
  @ApiProperty({ enum: REPORT_EXPORT_FORMATS }) @IsIn(REPORT_EXPORT_FORMATS) format!: ReportExportFormat;
}

export class DetailDownloadQueryDto {
  @ApiPropertyOptional({ enum: ['txt', 'csv'], default: 'txt' }) @IsOptional() @IsIn(['txt', 'csv']) format?: 'txt' | 'csv';
}
