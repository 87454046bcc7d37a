import {
  PERMISSIONS,
  type AdminUserDetail,
  type InvitationSummary,
  type Page,
  type UserFormOptions,
  type UserSummary,
} from '@centralita/contracts';
import { Body, Controller, Delete, Get, Param, Patch, Post, Put, Query, HttpCode, HttpStatus } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import {
  AdminUserDetailDto,
  ListUsersQueryDto,
  UpdateUserDto,
  UserFormOptionsDto,
  UserInputDto,
  UserPageDto,
  UserSummaryDto,
} from './dto/users.dto';
import { InvitationSummaryDto } from '../invitations/invitations.controller';
import { UsersService } from './users.service';

@ApiTags('users')
@ApiBearerAuth()
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: "Users of the caller's tenant, paged; sortField: name, email, roleCode, active, lastLoginAt, createdAt" })
  @ApiEnvelope(UserPageDto)
  @ApiErrors(400, 401, 403)
  list(@Query() query: ListUsersQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<UserSummary>> {
    return this.users.list(principal.clientId, query);
  }

  @Get('form-options')
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: 'Roles, attention lines, campaigns and pause reasons the user form picks from' })
  @ApiEnvelope(UserFormOptionsDto)
  @ApiErrors(401, 403)
  formOptions(@CurrentPrincipal() principal: Principal): Promise<UserFormOptions> {
    return this.users.formOptions(principal);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({
    summary:
      'Invites a user by mail (they choose their password from the link) with the lines, campaigns and pause reasons they will serve; the answer is the same whether or not the address has an account elsewhere',
  })
  @ApiEnvelope(InvitationSummaryDto)
  @ApiErrors(400, 401, 403, 404, 409)
  create(@Body() body: UserInputDto, @CurrentPrincipal() principal: Principal): Promise<InvitationSummary> {
    return this.users.create(principal, body);
  }

  @Get(':id/detail')
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: 'A user with the lines, campaigns and pause reasons they serve' })
  @ApiEnvelope(AdminUserDetailDto)
  @ApiErrors(400, 401, 403, 404)
  detail(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<AdminUserDetail> {
    return this.users.detail(principal.clientId, id);
  }

  @Put(':id')
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: 'Replaces a user; a new password or deactivation ends their sessions' })
  @ApiEnvelope(AdminUserDetailDto)
  @ApiErrors(400, 401, 403, 404, 409)
  replace(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: UserInputDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<AdminUserDetail> {
    return this.users.replace(principal, id, body);
  }

  @Delete(':id')
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: 'Deactivates a user (soft delete: history keeps naming them) and ends their sessions' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 409)
  remove(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<{ deleted: true }> {
    return this.users.remove(principal, id);
  }

  @Get(':id')
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: "One user; another tenant's id answers 404" })
  @ApiEnvelope(UserSummaryDto)
  @ApiErrors(400, 401, 403, 404)
  get(@Param('id', ParseUuidPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<UserSummary> {
    return this.users.get(principal.clientId, id);
  }

  @Patch(':id')
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: 'Changes name, role or active flag; deactivation ends the sessions at once' })
  @ApiEnvelope(UserSummaryDto)
  @ApiErrors(400, 401, 403, 404, 409)
  update(
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: UpdateUserDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<UserSummary> {
    return this.users.update(principal, id, body);
  }
}
