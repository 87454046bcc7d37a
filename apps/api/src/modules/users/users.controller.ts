import { PERMISSIONS, type Page, type UserSummary } from '@centralita/contracts';
import { Body, Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { ListUsersQueryDto, UpdateUserDto, UserPageDto, UserSummaryDto } from './dto/users.dto';
import { UsersService } from './users.service';

@ApiTags('users')
@ApiBearerAuth()
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: "Users of the caller's tenant, by name" })
  @ApiEnvelope(UserPageDto)
  @ApiErrors(400, 401, 403)
  list(@Query() query: ListUsersQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<UserSummary>> {
    return this.users.list(principal.clientId, query.page, query.pageSize);
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
