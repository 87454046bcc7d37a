import {
  PERMISSIONS,
  type AgentView,
  type CallerLookup,
  type CallRecordView,
  type SoftphoneAccountView,
  type SoftphoneConfig,
  type SoftphoneSettings,
} from '@centralita/contracts';
import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { CallDispositionDto, CallEndedDto, LookupQueryDto, SoftphoneAccountDto, SoftphoneConfigDto } from './softphone.dto';
import { SoftphoneService } from './softphone.service';

@ApiTags('softphone')
@ApiBearerAuth()
@Controller('softphone')
export class SoftphoneController {
  constructor(private readonly softphone: SoftphoneService) {}

  @Get('settings')
  @RequirePermission(PERMISSIONS.softphoneUse)
  @ApiOperation({ summary: "The signed-in agent's SIP registration settings (their own password included)" })
  @ApiErrors(401, 403)
  settings(@CurrentPrincipal() principal: Principal): Promise<SoftphoneSettings> {
    return this.softphone.settings(principal);
  }

  @Get('config')
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({ summary: "The tenant's SIP server" })
  @ApiErrors(401, 403)
  config(@CurrentPrincipal() principal: Principal): Promise<SoftphoneConfig> {
    return this.softphone.config(principal.clientId);
  }

  @Put('config')
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiErrors(400, 401, 403)
  saveConfig(@CurrentPrincipal() principal: Principal, @Body() body: SoftphoneConfigDto): Promise<SoftphoneConfig> {
    return this.softphone.saveConfig(principal, { wsUrl: body.wsUrl, domain: body.domain, iceServers: body.iceServers ?? [] });
  }

  @Get('accounts/:userId')
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: "A user's SIP account; the password only masked" })
  @ApiErrors(400, 401, 403, 404)
  account(@CurrentPrincipal() principal: Principal, @Param('userId', ParseUuidPipe) userId: string): Promise<SoftphoneAccountView> {
    return this.softphone.account(principal, userId);
  }

  @Put('accounts/:userId')
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiOperation({ summary: "Set a user's extension and SIP password (stored encrypted)" })
  @ApiErrors(400, 401, 403, 404, 409)
  saveAccount(
    @CurrentPrincipal() principal: Principal,
    @Param('userId', ParseUuidPipe) userId: string,
    @Body() body: SoftphoneAccountDto,
  ): Promise<SoftphoneAccountView> {
    return this.softphone.saveAccount(principal, userId, body);
  }

  @Get('lookup')
  @RequirePermission(PERMISSIONS.softphoneUse)
  @ApiOperation({ summary: 'Screen pop: contacts from the phone lists (and colleagues) with this number' })
  @ApiErrors(400, 401, 403)
  lookup(@CurrentPrincipal() principal: Principal, @Query() query: LookupQueryDto): Promise<CallerLookup> {
    return this.softphone.lookup(principal, query.number);
  }

  @Get('calls')
  @RequirePermission(PERMISSIONS.softphoneUse)
  @ApiOperation({ summary: "The agent's 20 latest dispositioned calls" })
  calls(@CurrentPrincipal() principal: Principal): Promise<CallRecordView[]> {
    return this.softphone.recentCalls(principal);
  }

  @Post('calls')
  @RequirePermission(PERMISSIONS.softphoneUse)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Store the disposition chosen on hang-up (same Call-ID again updates it)' })
  @ApiErrors(400, 401, 403)
  saveDisposition(@CurrentPrincipal() principal: Principal, @Body() body: CallDispositionDto): Promise<CallRecordView> {
    return this.softphone.saveDisposition(principal, body);
  }

  @Post('presence/call-started')
  @RequirePermission(PERMISSIONS.softphoneUse)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'A SIP call was answered: agent presence goes to inCall' })
  @ApiErrors(401, 403, 404, 409)
  callStarted(@CurrentPrincipal() principal: Principal): Promise<AgentView> {
    return this.softphone.callStarted(principal);
  }

  @Post('presence/call-ended')
  @RequirePermission(PERMISSIONS.softphoneUse)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'The SIP call ended: agent presence goes to afterCallWork' })
  @ApiErrors(400, 401, 403, 404, 409)
  callEnded(@CurrentPrincipal() principal: Principal, @Body() body: CallEndedDto): Promise<AgentView> {
    return this.softphone.callEnded(principal, body.disposition);
  }
}
