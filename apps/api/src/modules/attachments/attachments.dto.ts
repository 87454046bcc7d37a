import { LIMITS } from '@centralita/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { Trim } from '../../common/transforms';

/** The text fields of a multipart upload, besides the file. */
export class UploadFieldsDto {
  @ApiPropertyOptional({ maxLength: LIMITS.maxMessageLength, description: "The message's text shown with the file" })
  @IsOptional()
  @Trim()
  @MaxLength(LIMITS.maxMessageLength, { message: `caption must be at most ${LIMITS.maxMessageLength} characters` })
  @IsString()
  caption?: string;

  @ApiPropertyOptional({ description: 'Client-chosen id: the same upload sent twice is stored once' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'clientMessageId must be 1 to 64 letters, digits, "_", "." or "-"' })
  @IsString()
  clientMessageId?: string;
}
