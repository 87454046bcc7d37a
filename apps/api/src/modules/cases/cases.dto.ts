import { CASE_ACTIVITY_KINDS, CASE_STATUSES, GEO_LEVELS, type CaseInput, type GeoLevel } from '@centralita/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsIn, IsOptional, IsString, IsUUID, Length } from 'class-validator';
import { Trim } from '../../common/transforms';
import { PagedQueryDto } from '../admin/paged-query.dto';

/** Types only: validateCase() (shared with the console) and the service hold the rules. */
export class CaseInputDto implements Partial<Record<keyof CaseInput, unknown>> {
  @ApiPropertyOptional({ format: 'uuid', nullable: true }) @IsOptional() @IsString() typeId?: string | null;
  @ApiProperty({ maxLength: 200 }) @IsOptional() @IsString() subject?: string;
  @ApiProperty({ maxLength: 4000, description: 'Required (spec §5)' }) @IsOptional() @IsString() description?: string;
  @ApiPropertyOptional({ enum: CASE_STATUSES }) @IsOptional() @IsString() status?: CaseInput['status'];
  @ApiPropertyOptional({ format: 'uuid', nullable: true }) @IsOptional() @IsString() ownerId?: string | null;
  @ApiPropertyOptional({ nullable: true }) @IsOptional() @IsString() contactName?: string | null;
  @ApiPropertyOptional({ nullable: true }) @IsOptional() @IsString() contactEmail?: string | null;
  @ApiPropertyOptional({ nullable: true, description: 'At least 8 digits' }) @IsOptional() @IsString() contactPhone?: string | null;
  @ApiPropertyOptional({ format: 'uuid', nullable: true }) @IsOptional() @IsString() provinceId?: string | null;
  @ApiPropertyOptional({ format: 'uuid', nullable: true, description: 'A canton of the province' }) @IsOptional() @IsString() cantonId?:
    string | null;
  @ApiPropertyOptional({ format: 'uuid', nullable: true, description: 'A district of the canton' }) @IsOptional() @IsString() districtId?:
    string | null;
  @ApiPropertyOptional({ format: 'uuid', nullable: true }) @IsOptional() @IsString() identificationTypeId?: string | null;
  @ApiPropertyOptional({ nullable: true, description: "Must match the identification type's format" })
  @IsOptional()
  @IsString()
  identificationNumber?: string | null;
}

export class CreateCaseDto extends CaseInputDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'A conversation to link the new case to (one case per conversation)' })
  @IsOptional()
  @IsUUID()
  conversationId?: string;
}

export class CaseListQueryDto extends PagedQueryDto {
  @ApiPropertyOptional({ enum: CASE_STATUSES }) @IsOptional() @IsIn(CASE_STATUSES) status?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() typeId?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() ownerId?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() assigneeId?: string;
  @ApiPropertyOptional({ description: 'Created at or after (ISO date or date-time)' })
  @IsOptional()
  @Length(10, 40)
  @IsString()
  from?: string;
  @ApiPropertyOptional({ description: 'Created before (ISO date or date-time)' }) @IsOptional() @Length(10, 40) @IsString() to?: string;
}

export class CaseExportQueryDto extends CaseListQueryDto {
  @ApiProperty({ enum: ['csv', 'xlsx'] }) @IsIn(['csv', 'xlsx']) format!: 'csv' | 'xlsx';
}

export class GeoQueryDto {
  @ApiProperty({ enum: GEO_LEVELS }) @IsIn(GEO_LEVELS) level!: GeoLevel;
  @ApiPropertyOptional({ format: 'uuid', description: 'The province of cantons, the canton of districts' })
  @IsOptional()
  @IsUUID()
  parentId?: string;
}

export class CaseNoteDto {
  @ApiProperty({ maxLength: 4000 }) @IsOptional() @IsString() text?: string;
  @ApiPropertyOptional({ type: [String], description: 'Ids of mentioned users of the tenant' })
  @IsOptional()
  @IsArray()
  mentions?: string[];
}

export class CaseActivityDto {
  @ApiProperty({ enum: CASE_ACTIVITY_KINDS }) @IsOptional() @IsString() kind?: string;
  @ApiProperty({ maxLength: 200 }) @IsOptional() @IsString() title?: string;
  @ApiPropertyOptional({ format: 'date-time', nullable: true }) @IsOptional() @IsString() dueAt?: string | null;
  @ApiPropertyOptional({ format: 'uuid', nullable: true }) @IsOptional() @IsString() assigneeId?: string | null;
}

export class ActivityDoneDto {
  @ApiProperty() @IsBoolean() done!: boolean;
}

export class AssigneeDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() userId!: string;
}

export class LinkConversationDto {
  @ApiProperty({ format: 'uuid' }) @Trim() @IsUUID() conversationId!: string;
}

export class GeoImportQueryDto {
  @ApiPropertyOptional({ maxLength: 255 }) @IsOptional() @Length(0, 255) @IsString() fileName?: string;
}
