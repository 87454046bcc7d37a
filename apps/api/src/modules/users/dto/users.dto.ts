import type { AdminUserDetail, UpdateUserRequest, UserFormOptions, UserInput, UserSummary } from '@centralita/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsOptional, IsString, IsUUID, Length, Matches } from 'class-validator';
import { PagedQueryDto } from '../../admin/paged-query.dto';
import { Trim } from '../../../common/transforms';

/** Paging as every admin list; sortField: name, email, roleCode, active, lastLoginAt, createdAt. Default page size 50. */
export class ListUsersQueryDto extends PagedQueryDto {}

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

/** Types only; validateUser() (shared with the console) holds the rules. Tenant never comes from here. */
export class UserInputDto implements Partial<UserInput> {
  @ApiProperty() @IsOptional() @Trim() @IsString() name?: string;
  @ApiProperty({ description: 'Sign-in name, unique on the platform' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @IsString()
  email?: string;
  @ApiProperty({ format: 'uuid' }) @IsOptional() @IsString() roleId?: string;
  @ApiPropertyOptional({ description: 'At least 8 characters; required on create, empty on update keeps the current one' })
  @IsOptional()
  @IsString()
  password?: string;
  @ApiPropertyOptional({ type: String, format: 'date', nullable: true, description: 'Password expiration date' })
  @IsOptional()
  @IsString()
  passwordExpiresAt?: string | null;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() active?: boolean;
  @ApiPropertyOptional({ type: [String], description: 'Attention lines the user serves' })
  @IsOptional()
  @ArrayMaxSize(500)
  @IsUUID('all', { each: true })
  @IsArray()
  attentionLineIds?: string[];
  @ApiPropertyOptional({ type: [String], description: 'Campaigns the user serves' })
  @IsOptional()
  @ArrayMaxSize(500)
  @IsUUID('all', { each: true })
  @IsArray()
  campaignIds?: string[];
  @ApiPropertyOptional({ type: [String], description: 'Pause reason codes allowed; empty = all' })
  @IsOptional()
  @ArrayMaxSize(100)
  @Matches(/^[\w.-]{1,40}$/, { each: true })
  @IsArray()
  pauseReasonCodes?: string[];
}

export class AdminUserDetailDto implements AdminUserDetail {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() email!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'uuid' }) roleId!: string;
  @ApiProperty() roleCode!: string;
  @ApiProperty() active!: boolean;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) passwordExpiresAt!: string | null;
  @ApiProperty({ type: [String] }) attentionLineIds!: string[];
  @ApiProperty({ type: [String] }) campaignIds!: string[];
  @ApiProperty({ type: [String] }) pauseReasonCodes!: string[];
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) lastLoginAt!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

class OptionDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
}
class RoleOptionDto extends OptionDto {
  @ApiProperty({ description: 'false when the role holds permissions the caller lacks: the caller cannot give it' })
  grantable!: boolean;
}
class PauseReasonOptionDto {
  @ApiProperty() code!: string;
  @ApiProperty() label!: string;
}
export class UserFormOptionsDto implements UserFormOptions {
  @ApiProperty({ type: [RoleOptionDto] }) roles!: RoleOptionDto[];
  @ApiProperty({ type: [OptionDto] }) attentionLines!: OptionDto[];
  @ApiProperty({ type: [OptionDto] }) campaigns!: OptionDto[];
  @ApiProperty({ type: [PauseReasonOptionDto] }) pauseReasons!: PauseReasonOptionDto[];
}
