import {
  ALL_PERMISSIONS,
  PERMISSIONS,
  type MenuItem,
  type Page,
  type RoleCodeOption,
  type RoleInput,
  type RoleSummary,
} from '@centralita/contracts';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString } from 'class-validator';
import { Trim } from '../../common/transforms';
import { PagedQueryDto } from '../admin/paged-query.dto';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { Authenticated, RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { RolesService } from './roles.service';

export class RoleSummaryDto implements RoleSummary {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'AGENT' }) code!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: [String] }) permissions!: string[];
  @ApiProperty() builtIn!: boolean;
}

export class RoleCodeOptionDto implements RoleCodeOption {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() code!: string;
  @ApiProperty() name!: string;
}

/** Types only; validateRole() (shared with the console) holds the rules. */
export class RoleInputDto implements Partial<RoleInput> {
  @ApiProperty({ example: 'QA_LEAD', description: 'Upper-case letters, digits and _; 2..40' })
  @IsOptional()
  @Trim()
  @IsString()
  code?: string;
  @ApiProperty() @IsOptional() @Trim() @IsString() name?: string;
  @ApiProperty({ type: [String], enum: ALL_PERMISSIONS, description: 'The permissions the server enforces for users of this role' })
  @IsOptional()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @IsArray()
  permissions?: string[];
  @ApiPropertyOptional({ type: [String], description: 'Menu curation: APP_ROUTES paths in order; never grants access' })
  @IsOptional()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @IsArray()
  menuPaths?: string[];
}

export class MenuEntriesDto {
  @ApiProperty({ type: [String], example: ['/users/Users'] })
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @IsArray()
  routePaths!: string[];
}

export class RolePageDto {
  @ApiProperty({ type: [RoleSummaryDto] }) items!: RoleSummaryDto[];
  @ApiProperty() total!: number;
  @ApiProperty() page!: number;
  @ApiProperty() pageSize!: number;
}

@ApiTags('roles')
@ApiBearerAuth()
@Controller('roles')
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Get()
  @RequirePermission(PERMISSIONS.rolesManage)
  @ApiOperation({ summary: "Roles of the caller's tenant, paged; sortField: code, name, builtIn" })
  @ApiEnvelope(RolePageDto)
  @ApiErrors(400, 401, 403)
  list(@Query() query: PagedQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<RoleSummary>> {
    return this.roles.list(principal.clientId, query);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.rolesManage)
  @ApiOperation({ summary: 'Adds a role with its permissions and optional menu curation' })
  @ApiEnvelope(RoleSummaryDto)
  @ApiErrors(400, 401, 403, 409)
  create(@Body() body: RoleInputDto, @CurrentPrincipal() principal: Principal): Promise<RoleSummary> {
    return this.roles.create(principal, body);
  }

  // Declared before ':id' so "codes" is never read as an id.
  @Get('codes')
  @RequirePermission(PERMISSIONS.rolesManage, PERMISSIONS.usersManage)
  @ApiOperation({ summary: 'Role codes for pickers (roles.manage or users.manage)' })
  @ApiEnvelope([RoleCodeOptionDto])
  @ApiErrors(401, 403)
  codes(@CurrentPrincipal() principal: Principal): Promise<RoleCodeOption[]> {
    return this.roles.codes(principal.clientId);
  }

  @Get(':id')
  @RequirePermission(PERMISSIONS.rolesManage)
  @ApiOperation({ summary: "One role; another tenant's id answers 404" })
  @ApiEnvelope(RoleSummaryDto)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<RoleSummary> {
    return this.roles.get(principal.clientId, id);
  }

  @Put(':id')
  @RequirePermission(PERMISSIONS.rolesManage)
  @ApiOperation({ summary: 'Replaces a role; its users get the new permissions on their next request' })
  @ApiEnvelope(RoleSummaryDto)
  @ApiErrors(400, 401, 403, 404, 409)
  update(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: RoleInputDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<RoleSummary> {
    return this.roles.update(principal, id, body);
  }

  @Delete(':id')
  @RequirePermission(PERMISSIONS.rolesManage)
  @ApiOperation({ summary: 'Deletes a role of its own (not built-in, given to no user)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  remove(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ deleted: true }> {
    return this.roles.remove(principal, id);
  }

  @Get(':id/menu-entries')
  @RequirePermission(PERMISSIONS.rolesManage)
  @ApiOperation({ summary: "The role's curated menu entries in order (empty: every route its permissions open)" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  menuEntries(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<string[]> {
    return this.roles.menuPaths(principal.clientId, id);
  }

  @Post(':id/menu')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.rolesManage)
  @ApiOperation({ summary: 'Adds menu entries to a role (APP_ROUTES paths); entries never grant access' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  addMenu(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: MenuEntriesDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<string[]> {
    return this.roles.addMenuEntries(principal, id, body.routePaths);
  }

  @Get(':id/menu')
  @RequirePermission(PERMISSIONS.rolesManage)
  @ApiOperation({ summary: 'The side navigation this role sees' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  menu(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<MenuItem[]> {
    return this.roles.menuForRole(principal.clientId, id);
  }
}

@ApiTags('roles')
@ApiBearerAuth()
@Controller('menu')
export class MenuController {
  constructor(private readonly roles: RolesService) {}

  @Get()
  @Authenticated()
  @ApiOperation({ summary: "The caller's side navigation (sections, groups and links; i18n keys menu.<key> and routes.<key>)" })
  @ApiEnvelope(null)
  @ApiErrors(401)
  menu(@CurrentPrincipal() principal: Principal): Promise<MenuItem[]> {
    return this.roles.menuFor(principal);
  }
}
