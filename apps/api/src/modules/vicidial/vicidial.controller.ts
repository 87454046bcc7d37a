import {
  INTEGRATION_KEY_HEADER,
  INTEGRATION_KEY_LIMITS,
  PERMISSIONS,
  VICIDIAL_API_TOKEN_TTL_SECONDS,
  type ApiViciTokenResult,
  type AuthResult,
  type CreatedIntegrationKey,
  type ExternLoginVicidialRequest,
  type ExternLoginVicidialResult,
  type IntegrationKeyInput,
  type IntegrationKeySummary,
} from '@centralita/contracts';
import { Body, Controller, Delete, Get, Headers, HttpCode, HttpStatus, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import type { Request } from 'express';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { Public, RequirePermission } from '../auth/access.decorator';
import { AuthResultDto } from '../auth/dto/auth-responses.dto';
import { clientIp, clientMeta, CurrentPrincipal, type Principal } from '../auth/principal';
import { IntegrationKeysService } from './integration-keys.service';
import { VicidialLoginService } from './vicidial-login.service';
import { keyFromHeaders } from './vicidial-links';

export class ExternLoginVicidialDto implements ExternLoginVicidialRequest {
  @ApiProperty({ description: "The agent to sign in: their user id or email, in the key's organisation" })
  @Length(1, 254)
  @IsString()
  agent!: string;

  @ApiPropertyOptional({
    description:
      "Where the browser goes once signed in: a console path (/SoftPhoneNew/Phone) or an http(s) URL allowed by the key's origins or, when it lists none, a public address",
    maxLength: INTEGRATION_KEY_LIMITS.callbackMax,
  })
  @IsOptional()
  @MaxLength(INTEGRATION_KEY_LIMITS.callbackMax)
  @IsString()
  callback?: string;
}

export class ExternLoginVicidialResultDto implements ExternLoginVicidialResult {
  @ApiProperty({ description: '<PUBLIC_URL>/session/vicidial/<id>[/<callback, URL-encoded>]: open it once, before expiresAt' })
  url!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
}

export class ApiViciTokenResultDto implements ApiViciTokenResult {
  @ApiProperty({
    description: `Stands for the integration key (X-Api-Key or Authorization: Bearer) for ${VICIDIAL_API_TOKEN_TTL_SECONDS} seconds, or until the key is revoked`,
  })
  token!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
}

export class VicidialSessionDto extends AuthResultDto {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The callback bound to the link when it was issued (never the one in the URL)',
  })
  callback!: string | null;
}

export class IntegrationKeyInputDto implements IntegrationKeyInput {
  @ApiProperty({ maxLength: INTEGRATION_KEY_LIMITS.nameMax })
  @Length(1, INTEGRATION_KEY_LIMITS.nameMax)
  @IsString()
  name!: string;

  @ApiPropertyOptional({ type: [String], description: 'http(s) origins callbacks may go to; empty: any public address' })
  @IsOptional()
  @ArrayMaxSize(INTEGRATION_KEY_LIMITS.callbackOriginsMax)
  @MaxLength(300, { each: true })
  @IsString({ each: true })
  @IsArray()
  callbackOrigins?: string[];
}

export class IntegrationKeySummaryDto implements IntegrationKeySummary {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() hint!: string;
  @ApiProperty({ type: [String] }) callbackOrigins!: string[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, nullable: true }) createdByName!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) lastUsedAt!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) revokedAt!: string | null;
}

export class CreatedIntegrationKeyDto extends IntegrationKeySummaryDto implements CreatedIntegrationKey {
  @ApiProperty({ description: 'The key itself: shown in this answer only' }) key!: string;
}

/** The spec's ExternLoginVicidial, under the API prefix like the other spec calls (Express paths ignore case). */
@ApiTags('vicidial')
@Controller()
export class ExternLoginController {
  constructor(private readonly logins: VicidialLoginService) {}

  @Post('ExternLoginVicidial')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary:
      "An integration key asks for a single-use sign-in link for one of its organisation's agents (rate-limited per key and per address)",
  })
  @ApiHeader({ name: INTEGRATION_KEY_HEADER, required: false, description: 'The integration key (or Authorization: Bearer <key>)' })
  @ApiEnvelope(ExternLoginVicidialResultDto)
  @ApiErrors(400, 401, 403, 404, 429)
  issue(
    @Body() body: ExternLoginVicidialDto,
    @Headers('authorization') authorization: string | undefined,
    @Headers(INTEGRATION_KEY_HEADER.toLowerCase()) apiKey: string | undefined,
    @Req() request: Request,
  ): Promise<ExternLoginVicidialResult> {
    return this.logins.issue(keyFromHeaders({ authorization, apiKey }), body, clientIp(request));
  }

  @Post('security/GetApiViciToken')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary:
      'An integration key asks for a short-lived API token that the dialer sends instead of the key (ExternLoginVicidial); only a key renews it (rate-limited per key and per address)',
  })
  @ApiHeader({ name: INTEGRATION_KEY_HEADER, required: false, description: 'The integration key (or Authorization: Bearer <key>)' })
  @ApiEnvelope(ApiViciTokenResultDto)
  @ApiErrors(401, 429)
  apiToken(
    @Headers('authorization') authorization: string | undefined,
    @Headers(INTEGRATION_KEY_HEADER.toLowerCase()) apiKey: string | undefined,
    @Req() request: Request,
  ): Promise<ApiViciTokenResult> {
    return this.logins.apiToken(keyFromHeaders({ authorization, apiKey }), clientIp(request));
  }

  @Post('auth/vicidial/:id')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Opens a dialer sign-in link once: starts the agent’s session like sign-in does (rate-limited per address)' })
  @ApiEnvelope(VicidialSessionDto)
  @ApiErrors(404, 429)
  exchange(@Param('id') id: string, @Req() request: Request): Promise<AuthResult & { callback: string | null }> {
    return this.logins.exchange(id, clientMeta(request));
  }
}

@ApiTags('integration-keys')
@ApiBearerAuth()
@Controller('integration-keys')
export class IntegrationKeysController {
  constructor(private readonly keys: IntegrationKeysService) {}

  @Get()
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: "The organisation's integration keys (never the keys themselves)" })
  @ApiEnvelope([IntegrationKeySummaryDto])
  @ApiErrors(401, 403)
  list(@CurrentPrincipal() principal: Principal): Promise<IntegrationKeySummary[]> {
    return this.keys.list(principal);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: 'Creates a key; the answer carries the key once, it is stored hashed' })
  @ApiEnvelope(CreatedIntegrationKeyDto)
  @ApiErrors(400, 401, 403, 409)
  create(@Body() body: IntegrationKeyInputDto, @CurrentPrincipal() principal: Principal): Promise<CreatedIntegrationKey> {
    return this.keys.create(principal, body);
  }

  @Delete(':id')
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: 'Revokes a key: it and the links it issued stop working at once' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  revoke(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ revoked: true }> {
    return this.keys.revoke(principal, id);
  }
}
