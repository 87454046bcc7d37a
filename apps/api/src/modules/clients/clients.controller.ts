import { PERMISSIONS, type ClientInput, type ClientSummary, type Page } from '@centralita/contracts';
import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsArray, IsOptional, IsString } from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { PagedQueryDto } from '../admin/paged-query.dto';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { ClientsService } from './clients.service';

/** Types only; validateClient() (shared with the console) holds the rules. */
export class ClientInputDto implements Partial<ClientInput> {
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
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() subscriptionPlan?: string | null;
  @ApiPropertyOptional({ type: [String], description: 'Origins allowed to embed the web-chat widget, e.g. https://shop.example' })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  allowedOrigins?: string[];
}

export class ResellerDto {
  @ApiProperty() @IsString() name!: string;
}

@ApiTags('clients')
@ApiBearerAuth()
@Controller()
export class ClientsController {
  constructor(private readonly clients: ClientsService) {}

  @Get('clients')
  @RequirePermission(PERMISSIONS.clientsManage)
  @ApiOperation({ summary: "Customers of the caller's reseller, paged; sortField: name, subscriptionPlan, createdAt" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403)
  list(@Query() query: PagedQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<ClientSummary>> {
    return this.clients.list(principal, query);
  }

  @Get('clients/:id')
  @RequirePermission(PERMISSIONS.clientsManage)
  @ApiOperation({ summary: "One customer; another reseller's answers 404" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<ClientSummary> {
    return this.clients.get(principal, id);
  }

  @Post('clients')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.clientsManage)
  @ApiOperation({ summary: 'Creates a customer (a tenant with its built-in roles) under the caller’s reseller' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 409)
  create(@Body() body: ClientInputDto, @CurrentPrincipal() principal: Principal): Promise<ClientSummary> {
    return this.clients.create(principal, body);
  }

  @Put('clients/:id')
  @RequirePermission(PERMISSIONS.clientsManage)
  @ApiOperation({ summary: 'Replaces a customer’s name, branding and plan (GET /api/general/branding shows it at once)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  update(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: ClientInputDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ClientSummary> {
    return this.clients.update(principal, id, body);
  }

  @Get('resellers/current')
  @RequirePermission(PERMISSIONS.resellersManage)
  @ApiOperation({ summary: "The caller's reseller (brand)" })
  @ApiEnvelope(null)
  @ApiErrors(401, 403)
  reseller(@CurrentPrincipal() principal: Principal): Promise<{ id: string; name: string }> {
    return this.clients.reseller(principal);
  }

  @Put('resellers/current')
  @RequirePermission(PERMISSIONS.resellersManage)
  @ApiOperation({ summary: "Renames the caller's reseller" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 409)
  renameReseller(@Body() body: ResellerDto, @CurrentPrincipal() principal: Principal): Promise<{ id: string; name: string }> {
    return this.clients.renameReseller(principal, body.name);
  }
}
