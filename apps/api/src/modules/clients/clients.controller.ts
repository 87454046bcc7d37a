import {
  PERMISSIONS,
  type ClientSummary,
  type CreateClientRequest,
  type CreateClientResult,
  type FirstAdminInvite,
  type FirstAdminState,
  type InvitationSummary,
  type Page,
  type ResellerSummary,
} from '@centralita/contracts';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsArray, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { PagedQueryDto } from '../admin/paged-query.dto';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { ClientsService } from './clients.service';

/** Types only; validateClient() (shared with the console) holds the rules. */
export class ClientInputDto {
  @ApiProperty() @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() bannerUrl?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() loginImageUrl?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, example: '#2563eb' }) @IsOptional() @IsString() mainColor?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Compact logo (branding logoUrl)' })
  @IsOptional()
  @IsString()
  menuLogoUrl?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Full logo (branding completeLogoUrl)' })
  @IsOptional()
  @IsString()
  completeMenuLogoUrl?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Set by the reseller (a tenant administrator cannot change it)' })
  @IsOptional()
  @IsString()
  subscriptionPlan?: string | null;
  @ApiPropertyOptional({ type: [String], description: 'Origins allowed to embed the web-chat widget, e.g. https://shop.example' })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  allowedOrigins?: string[];
}

export class CreateClientDto extends ClientInputDto implements Partial<CreateClientRequest> {
  @ApiProperty({ description: 'Email of the first administrator, invited by mail (validateInvitee holds the rules)' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  adminEmail?: string;
  @ApiProperty({ description: 'Name of the first administrator' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  adminName?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'Platform operator only: the reseller that owns the new tenant' })
  @IsOptional()
  @IsUUID()
  resellerId?: string;
}

export class ResellerDto {
  @ApiProperty() @IsString() @MaxLength(1000) name!: string;
}

export class CreateResellerDto extends ResellerDto {
  @ApiProperty({ description: "Email of the reseller's first administrator, invited by mail" })
  @IsString()
  @MaxLength(1000)
  adminEmail!: string;
  @ApiProperty() @IsString() @MaxLength(1000) adminName!: string;
}

export class FirstAdminInviteDto implements Partial<FirstAdminInvite> {
  @ApiProperty({ description: 'Email of the administrator to invite (validateInvitee holds the rules)' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  adminEmail?: string;
  @ApiProperty() @IsOptional() @IsString() @MaxLength(1000) adminName?: string;
}

/** Who reaches the customers screens; the service narrows each caller to their level's scope (404 outside it). */
const CUSTOMERS = [PERMISSIONS.clientsManage, PERMISSIONS.tenantsManage] as const;

@ApiTags('clients')
@ApiBearerAuth()
@Controller()
export class ClientsController {
  constructor(private readonly clients: ClientsService) {}

  @Get('clients')
  @RequirePermission(...CUSTOMERS)
  @ApiOperation({
    summary:
      'Customers in the caller’s scope, paged: every tenant (platform), the reseller’s tenants (reseller staff), or only the caller’s own tenant (tenant administrator); sortField: name, subscriptionPlan, createdAt, resellerName',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403)
  list(@Query() query: PagedQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<ClientSummary>> {
    return this.clients.list(principal, query);
  }

  @Get('clients/:id')
  @RequirePermission(...CUSTOMERS)
  @ApiOperation({ summary: 'One customer; outside the caller’s scope (a sibling tenant, another reseller’s) answers 404' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<ClientSummary> {
    return this.clients.get(principal, id);
  }

  @Post('clients')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.tenantsManage)
  @ApiOperation({
    summary:
      'Creates a customer (a tenant with its built-in roles) and invites its first administrator by mail, in one transaction; reseller staff create under their own reseller, the platform names one',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  create(@Body() body: CreateClientDto, @CurrentPrincipal() principal: Principal): Promise<CreateClientResult> {
    return this.clients.create(principal, body);
  }

  @Put('clients/:id')
  @RequirePermission(...CUSTOMERS)
  @ApiOperation({
    summary:
      'Replaces a customer’s name, branding and plan (GET /api/general/branding shows it at once); a tenant administrator may change only its own branding and allowed origins (403 for name or plan)',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  update(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: ClientInputDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ClientSummary> {
    return this.clients.update(principal, id, body);
  }

  @Get('clients/:id/invitations')
  @RequirePermission(PERMISSIONS.tenantsManage)
  @ApiOperation({
    summary:
      "Reseller staff and the platform: the tenant's first administrator — active ADMIN users and pending invitations to ADMIN (expired ones included); outside the caller's scope 404",
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  firstAdmin(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<FirstAdminState> {
    return this.clients.firstAdmin(principal, { kind: 'client', id });
  }

  @Post('clients/:id/invitations')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.tenantsManage)
  @ApiOperation({ summary: 'Reseller staff and the platform: invites another administrator to the tenant (ADMIN role) by mail' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  inviteFirstAdmin(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: FirstAdminInviteDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<InvitationSummary> {
    return this.clients.inviteFirstAdmin(principal, { kind: 'client', id }, body);
  }

  @Post('clients/:id/invitations/:invitationId/resend')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.tenantsManage)
  @ApiOperation({
    summary: "Re-sends a pending invitation to the tenant's ADMIN role with a new token and expiry; the old link stops working",
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  resendFirstAdmin(
    @Param('id', ParseUuidPipe) id: string,
    @Param('invitationId', ParseUuidPipe) invitationId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<InvitationSummary> {
    return this.clients.resendFirstAdmin(principal, { kind: 'client', id }, invitationId);
  }

  @Delete('clients/:id/invitations/:invitationId')
  @RequirePermission(PERMISSIONS.tenantsManage)
  @ApiOperation({ summary: "Revokes a pending invitation to the tenant's ADMIN role: its link stops working" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  revokeFirstAdmin(
    @Param('id', ParseUuidPipe) id: string,
    @Param('invitationId', ParseUuidPipe) invitationId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ revoked: true }> {
    return this.clients.revokeFirstAdmin(principal, { kind: 'client', id }, invitationId);
  }

  @Get('resellers/current')
  @RequirePermission(PERMISSIONS.resellersManage, PERMISSIONS.clientsManage)
  @ApiOperation({ summary: 'Reseller staff: their own reseller (brand); anyone else gets 404' })
  @ApiEnvelope(null)
  @ApiErrors(401, 403, 404)
  currentReseller(@CurrentPrincipal() principal: Principal): Promise<ResellerSummary> {
    return this.clients.currentReseller(principal);
  }

  @Put('resellers/current')
  @RequirePermission(PERMISSIONS.resellersManage, PERMISSIONS.clientsManage)
  @ApiOperation({ summary: 'Reseller staff: renames their own reseller; anyone else gets 404' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  renameCurrentReseller(@Body() body: ResellerDto, @CurrentPrincipal() principal: Principal): Promise<ResellerSummary> {
    return this.clients.renameCurrentReseller(principal, body.name);
  }

  @Get('resellers')
  @RequirePermission(PERMISSIONS.resellersManage, PERMISSIONS.platformManage)
  @ApiOperation({ summary: 'Resellers in scope, paged, with their tenant counts: all (platform) or the caller’s own (reseller staff)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403)
  resellers(@Query() query: PagedQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<ResellerSummary>> {
    return this.clients.resellers(principal, query);
  }

  @Post('resellers')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.platformManage)
  @ApiOperation({ summary: 'Platform operator: creates a reseller, its staff organisation and an invitation for its first administrator' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 409)
  createReseller(@Body() body: CreateResellerDto, @CurrentPrincipal() principal: Principal): Promise<ResellerSummary> {
    return this.clients.createReseller(principal, body);
  }

  @Get('resellers/:id')
  @RequirePermission(PERMISSIONS.resellersManage, PERMISSIONS.platformManage)
  @ApiOperation({ summary: 'One reseller in scope; others answer 404' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  reseller(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<ResellerSummary> {
    return this.clients.reseller(principal, id);
  }

  @Put('resellers/:id')
  @RequirePermission(PERMISSIONS.resellersManage, PERMISSIONS.platformManage)
  @ApiOperation({ summary: 'Renames a reseller in scope; others answer 404' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  renameReseller(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: ResellerDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ResellerSummary> {
    return this.clients.renameReseller(principal, id, body.name);
  }

  @Get('resellers/:id/invitations')
  @RequirePermission(PERMISSIONS.platformManage)
  @ApiOperation({
    summary:
      "Platform operator: a reseller's first administrator — active RESELLER_ADMIN users of its staff and pending invitations to that role (expired ones included)",
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  resellerFirstAdmin(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<FirstAdminState> {
    return this.clients.firstAdmin(principal, { kind: 'reseller', id });
  }

  @Post('resellers/:id/invitations')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.platformManage)
  @ApiOperation({ summary: "Platform operator: invites another administrator to a reseller's staff (RESELLER_ADMIN) by mail" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  inviteResellerFirstAdmin(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: FirstAdminInviteDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<InvitationSummary> {
    return this.clients.inviteFirstAdmin(principal, { kind: 'reseller', id }, body);
  }

  @Post('resellers/:id/invitations/:invitationId/resend')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.platformManage)
  @ApiOperation({ summary: "Platform operator: re-sends a pending invitation to a reseller's RESELLER_ADMIN role (new token and expiry)" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  resendResellerFirstAdmin(
    @Param('id', ParseUuidPipe) id: string,
    @Param('invitationId', ParseUuidPipe) invitationId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<InvitationSummary> {
    return this.clients.resendFirstAdmin(principal, { kind: 'reseller', id }, invitationId);
  }

  @Delete('resellers/:id/invitations/:invitationId')
  @RequirePermission(PERMISSIONS.platformManage)
  @ApiOperation({ summary: "Platform operator: revokes a pending invitation to a reseller's RESELLER_ADMIN role" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  revokeResellerFirstAdmin(
    @Param('id', ParseUuidPipe) id: string,
    @Param('invitationId', ParseUuidPipe) invitationId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ revoked: true }> {
    return this.clients.revokeFirstAdmin(principal, { kind: 'reseller', id }, invitationId);
  }
}
