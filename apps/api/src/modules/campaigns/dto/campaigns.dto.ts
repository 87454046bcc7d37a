import { ADMIN_LIMITS, type CampaignInput, type CampaignSummary } from '@centralita/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString } from 'class-validator';
import { Trim } from '../../../common/transforms';

/**
 * Types only: the business rules (required fields, 1..5 chats, from before to, identifier ≤ 20)
 * are the shared validateCampaign() the console runs too.
 */
export class CampaignInputDto implements Partial<CampaignInput> {
  @ApiProperty({ maxLength: ADMIN_LIMITS.nameMax }) @IsOptional() @Trim() @IsString() name?: string;
  @ApiProperty({ maxLength: ADMIN_LIMITS.descriptionMax }) @IsOptional() @Trim() @IsString() description?: string;
  @ApiProperty({ format: 'date', example: '2026-01-01' }) @IsOptional() @Trim() @IsString() fromDate?: string;
  @ApiProperty({ format: 'date', example: '2026-12-31', description: 'After fromDate' }) @IsOptional() @Trim() @IsString() toDate?: string;
  @ApiProperty({ maxLength: ADMIN_LIMITS.campaignIdentifierMax, description: 'Unique in the tenant, at most 20 characters' })
  @IsOptional()
  @Trim()
  @IsString()
  identifier?: string;
  @ApiProperty({ minimum: 1, maximum: 5 }) @IsOptional() @IsInt() allowedChatsPerAgent?: number;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() templateCampaign?: boolean;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: ADMIN_LIMITS.customerMax })
  @IsOptional()
  @Trim()
  @IsString()
  customer?: string | null;
}

export class CampaignSummaryDto implements CampaignSummary {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ format: 'date' }) fromDate!: string;
  @ApiProperty({ format: 'date' }) toDate!: string;
  @ApiProperty() identifier!: string;
  @ApiProperty() allowedChatsPerAgent!: number;
  @ApiProperty() templateCampaign!: boolean;
  @ApiProperty({ type: String, nullable: true }) customer!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class CampaignPageDto {
  @ApiProperty({ type: [CampaignSummaryDto] }) items!: CampaignSummaryDto[];
  @ApiProperty() total!: number;
  @ApiProperty() page!: number;
  @ApiProperty() pageSize!: number;
}

export class OptionItemDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
}
