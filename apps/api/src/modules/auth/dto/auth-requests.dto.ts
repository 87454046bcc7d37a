import { LIMITS } from '@centralita/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsOptional, IsString, IsUUID, Length, MaxLength, MinLength } from 'class-validator';
import { NormalizeEmail, Trim } from '../../../common/transforms';

/** Long passphrases are welcome; the cap only bounds hashing work per request. */
export const MAX_PASSWORD_LENGTH = 1024;

export class LoginDto {
  @ApiProperty({ example: 'admin@demo.centralita.io' })
  @NormalizeEmail()
  @MaxLength(254)
  @IsEmail()
  email!: string;

  @ApiProperty({ example: 'centralita-demo', format: 'password' })
  @MaxLength(MAX_PASSWORD_LENGTH)
  @IsNotEmpty()
  @IsString()
  password!: string;
}

export class RegisterDto {
  @ApiProperty({ example: 'new.agent@example.com' })
  @NormalizeEmail()
  @MaxLength(254)
  @IsEmail()
  email!: string;

  @ApiProperty({ description: 'Display name of the new user', example: 'New Agent' })
  @Trim()
  @Length(1, 160)
  @IsString()
  username!: string;

  @ApiProperty({ minLength: LIMITS.minPasswordLength, format: 'password' })
  @MaxLength(MAX_PASSWORD_LENGTH)
  @MinLength(LIMITS.minPasswordLength)
  @IsString()
  password!: string;
}

export class RegistrationTokenDto {
  @ApiProperty({ description: 'The token from the registration link (sent in the body, never in a URL the server logs)' })
  @Length(20, 200)
  @IsString()
  token!: string;
}

export class LogoutDto {
  @ApiProperty({ format: 'uuid', description: 'Must be the caller' })
  @IsUUID()
  userId!: string;
}

export class UserInfoQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Defaults to the caller; another user of the tenant needs users.manage' })
  @IsOptional()
  @IsUUID()
  UserId?: string;
}

export class RefreshQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'When given, must be the owner of the refresh token' })
  @IsOptional()
  @IsUUID()
  userId?: string;
}

export class RefreshBodyDto {
  @ApiPropertyOptional({ description: 'Alternative to the X-Refresh-Token header' })
  @IsOptional()
  @MaxLength(200)
  @IsString()
  refreshToken?: string;
}

export class SendResetPasswordEmailDto {
  @ApiProperty({ example: 'agent1@demo.centralita.io' })
  @NormalizeEmail()
  @MaxLength(254)
  @IsEmail()
  email!: string;
}

export class ResetTokenQueryDto {
  @ApiProperty({ description: 'The token from the reset link' })
  @Length(20, 200)
  @IsString()
  token!: string;
}

export class ResetPasswordDto {
  @ApiProperty({ description: 'The token from the reset link' })
  @Length(20, 200)
  @IsString()
  token!: string;

  @ApiProperty({ minLength: LIMITS.minPasswordLength, format: 'password' })
  @MaxLength(MAX_PASSWORD_LENGTH)
  @MinLength(LIMITS.minPasswordLength)
  @IsString()
  password!: string;
}
