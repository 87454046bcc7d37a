import type { UpdateUserRequest, UserSummary } from '@centralita/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, IsUUID, Length, Max, Min } from 'class-validator';
import { Trim } from '../../../common/transforms';

export class ListUsersQueryDto {
  @ApiPropertyOptional({ minimum: 1, default: 1 })
  @IsOptional()
  @Type(() => Number)
  @Min(1)
  @IsInt()
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @Max(200)
  @Min(1)
  @IsInt()
  pageSize?: number;
}

export class UpdateUserDto implements UpdateUserRequest {
  @ApiPropertyOptional()
  @IsOptional()
  @Trim()
  @Length(1, 160)
  @IsString()
  name?: string;

  @ApiPropertyOptional({ description: 'false ends every session of the user at once' })
  @IsOptional()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({ format: 'uuid', description: "A role of the caller's tenant" })
  @IsOptional()
  @IsUUID()
  roleId?: string;
}

export class UserSummaryDto implements UserSummary {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() email!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) avatar!: string | null;
  @ApiProperty({ format: 'uuid' }) roleId!: string;
  @ApiProperty() roleCode!: string;
  @ApiProperty() active!: boolean;
  @ApiProperty({ description: 'Session length in minutes' }) sessionTime!: number;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) passwordExpiresAt!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) lastLoginAt!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class UserPageDto {
  @ApiProperty({ type: [UserSummaryDto] }) items!: UserSummaryDto[];
  @ApiProperty() total!: number;
  @ApiProperty() page!: number;
  @ApiProperty() pageSize!: number;
}
