import { ADMIN_LIMITS, PREDEFINED_MESSAGE_SCOPES, type PredefinedMessageInput, type PredefinedMessageSummary } from '@centralita/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID } from 'class-validator';
import { Trim } from '../../../common/transforms';

/** Types only; validatePredefinedMessage() (shared with the console) holds the rules. */
export class PredefinedMessageInputDto implements Partial<PredefinedMessageInput> {
  @ApiProperty({ maxLength: ADMIN_LIMITS.predefinedMessageMax }) @IsOptional() @Trim() @IsString() message?: string;
  @ApiProperty({
    maxLength: ADMIN_LIMITS.shortcutMax,
    example: 'hello',
    description: "Stored without a leading '/' (one is removed): letters, digits, '_' and '-'",
  })
  @IsOptional()
  @Trim()
  @IsString()
  shortcut?: string;
  @ApiProperty({ enum: PREDEFINED_MESSAGE_SCOPES }) @IsOptional() @IsString() scope?: PredefinedMessageInput['scope'];
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: "Required for scope 'line'" })
  @IsOptional()
  @IsUUID()
  attentionLineId?: string | null;
}

export class PredefinedMessageSummaryDto implements PredefinedMessageSummary {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() message!: string;
  @ApiProperty() shortcut!: string;
  @ApiProperty({ enum: PREDEFINED_MESSAGE_SCOPES }) scope!: PredefinedMessageSummary['scope'];
  @ApiProperty({ type: String, nullable: true }) attentionLineId!: string | null;
  @ApiProperty({ type: String, nullable: true }) attentionLineName!: string | null;
  @ApiProperty({ type: String, nullable: true }) ownerUserId!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class PredefinedMessagePageDto {
  @ApiProperty({ type: [PredefinedMessageSummaryDto] }) items!: PredefinedMessageSummaryDto[];
  @ApiProperty() total!: number;
  @ApiProperty() page!: number;
  @ApiProperty() pageSize!: number;
}
