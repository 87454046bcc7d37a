import {
  ORGANISATION_LEVELS,
  type AuthResult,
  type Branding,
  type OrganisationLevel,
  type ResetTokenCheck,
  type SessionUser,
  type TokenPair,
} from '@centralita/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** OpenAPI shapes of the contracts types (the types themselves live in @centralita/contracts). */
export class SessionUserDto implements SessionUser {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, nullable: true }) avatar!: string | null;
  @ApiProperty() email!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'AGENT' }) role!: string;
  @ApiProperty({ format: 'uuid' }) clientId!: string;
  @ApiProperty() clientName!: string;
  @ApiProperty({ enum: ORGANISATION_LEVELS, description: 'tenant user, reseller staff or platform operator' }) level!: OrganisationLevel;
  @ApiProperty({ description: 'Session length in minutes' }) sessionTime!: number;
  @ApiProperty({ description: "Minutes without activity before the console signs out (the tenant's platform settings)" })
  idleLogoutMinutes!: number;
  @ApiProperty({ type: [String] }) permissions!: string[];
}

export class ProfileDto extends SessionUserDto {
  @ApiProperty() roleName!: string;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) lastLoginAt!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) passwordExpiresAt!: string | null;
}

export class TokenPairDto implements TokenPair {
  @ApiProperty({ description: 'HS256 JWT, about 10 minutes' }) accessToken!: string;
  @ApiProperty({ description: 'Opaque; rotated on every use' }) refreshToken!: string;
}

export class AuthResultDto extends TokenPairDto implements AuthResult {
  @ApiProperty({ type: SessionUserDto }) user!: SessionUserDto;
}

export class BrandingDto implements Branding {
  @ApiProperty() logoUrl!: string;
  @ApiProperty() completeLogoUrl!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) mainColor?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) bannerUrl?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) loginImageUrl?: string | null;
}

export class ResetTokenCheckDto implements ResetTokenCheck {
  @ApiProperty({ enum: [true] }) valid!: true;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
}

export class LogoutResultDto {
  @ApiProperty() loggedOut!: boolean;
}

export class AcceptedDto {
  @ApiProperty({ description: 'Always true: the answer never tells whether the account exists' }) accepted!: boolean;
}

export class RegistrationOptionsDto {
  @ApiProperty({ description: 'Whether POST /api/auth/register is open (SELF_REGISTRATION=on)' }) enabled!: boolean;
}

export class RegistrationConfirmedDto {
  @ApiProperty({ enum: [true] }) activated!: true;
  @ApiProperty({ description: 'The new administrator signs in with it' }) email!: string;
}

export class PasswordResetDoneDto {
  @ApiProperty() passwordReset!: boolean;
}
