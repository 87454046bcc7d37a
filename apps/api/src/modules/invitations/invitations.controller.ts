import { LIMITS, PERMISSIONS, type AuthResult, type InvitationCheck, type InvitationSummary } from '@centralita/contracts';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsString, Length, MaxLength, MinLength } from 'class-validator';
import type { Request } from 'express';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { Public, RequirePermission } from '../auth/access.decorator';
import { MAX_PASSWORD_LENGTH } from '../auth/dto/auth-requests.dto';
import { AuthResultDto } from '../auth/dto/auth-responses.dto';
import { clientIp, clientMeta, CurrentPrincipal, type Principal } from '../auth/principal';
import { InvitationsService } from './invitations.service';

export class InvitationTokenDto {
  @ApiProperty({ description: 'The token from the invitation link (sent in the body, never in a URL the server logs)' })
  @Length(20, 200)
  @IsString()
  token!: string;
}

export class AcceptInvitationDto extends InvitationTokenDto {
  @ApiProperty({ minLength: LIMITS.minPasswordLength, format: 'password' })
  @MaxLength(MAX_PASSWORD_LENGTH)
  @MinLength(LIMITS.minPasswordLength)
  @IsString()
  password!: string;
}

export class InvitationSummaryDto implements InvitationSummary {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() email!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'uuid' }) roleId!: string;
  @ApiProperty() roleName!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class InvitationCheckDto implements InvitationCheck {
  @ApiProperty({ enum: [true] }) valid!: true;
  @ApiProperty() email!: string;
  @ApiProperty() name!: string;
  @ApiProperty() organisationName!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
}

@ApiTags('invitations')
@Controller('invitations')
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Post('check')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Whether an invitation token can still be used, and for whom (rate-limited per IP)' })
  @ApiEnvelope(InvitationCheckDto)
  @ApiErrors(400, 429)
  check(@Body() body: InvitationTokenDto, @Req() request: Request): Promise<InvitationCheck> {
    return this.invitations.check(body.token, clientIp(request));
  }

  @Post('accept')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Sets the password, creates the account and signs in; the token is single use (rate-limited per IP)' })
  @ApiEnvelope(AuthResultDto)
  @ApiErrors(400, 429)
  accept(@Body() body: AcceptInvitationDto, @Req() request: Request): Promise<AuthResult> {
    return this.invitations.accept(body.token, body.password, clientMeta(request));
  }

  @Get()
  @ApiBearerAuth()
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: "Pending invitations of the caller's organisation (tokens are never shown)" })
  @ApiEnvelope([InvitationSummaryDto])
  @ApiErrors(401, 403)
  list(@CurrentPrincipal() principal: Principal): Promise<InvitationSummary[]> {
    return this.invitations.listPending(principal);
  }

  @Post(':id/resend')
  @ApiBearerAuth()
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: 'Mails the invitation again with a new token and expiry; the previous link stops working' })
  @ApiEnvelope(InvitationSummaryDto)
  @ApiErrors(400, 401, 403, 404)
  resend(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<InvitationSummary> {
    return this.invitations.resend(principal, id);
  }

  @Delete(':id')
  @ApiBearerAuth()
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: 'Revokes a pending invitation: its link stops working' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  revoke(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ revoked: true }> {
    return this.invitations.revoke(principal, id);
  }
}
