import { PERMISSIONS, type MenuItem, type RoleCodeOption, type RoleSummary } from '@centralita/contracts';
import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
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

@ApiTags('roles')
@ApiBearerAuth()
@Controller('roles')
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Get()
  @RequirePermission(PERMISSIONS.rolesManage)
  @ApiOperation({ summary: "Roles of the caller's tenant" })
  @ApiEnvelope([RoleSummaryDto])
  @ApiErrors(401, 403)
  list(@CurrentPrincipal() principal: Principal): Promise<RoleSummary[]> {
    return this.roles.list(principal.clientId);
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
