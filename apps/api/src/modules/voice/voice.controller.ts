import {
  PERMISSIONS,
  VOICE_MONITOR_MODES,
  type VoiceMonitorMode,
  type VoiceMonitorStatus,
  type VoiceScreenPop,
} from '@centralita/contracts';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { ApiErrors } from '../../common/api-envelope.decorator';
import { ParseUuidPipe } from '../../common/parse-uuid.pipe';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { VoiceCallsService, type VoiceCallView } from './voice-calls.service';
import { VoiceMonitoringService, type VoiceMonitorView } from './voice-monitoring.service';
import { VoiceScreenPopService } from './voice-screen-pop.service';

export class MonitorModeDto {
  @ApiProperty({ enum: VOICE_MONITOR_MODES }) @IsIn(VOICE_MONITOR_MODES) mode!: VoiceMonitorMode;
}

@ApiTags('voice')
@ApiBearerAuth()
@Controller('voice')
export class VoiceController {
  constructor(
    private readonly calls: VoiceCallsService,
    private readonly monitoring: VoiceMonitoringService,
    private readonly screenPops: VoiceScreenPopService,
  ) {}

  @Get('conversations/:id/screen-pop')
  @RequirePermission(PERMISSIONS.conversationsHandle, PERMISSIONS.conversationsSupervise)
  @ApiOperation({
    summary:
      "The ringing call's screen pop for the agent it is assigned to (or a supervisor): caller, line, IVR path with keys, queue time, contact",
  })
  @ApiErrors(400, 401, 403, 404)
  screenPop(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<VoiceScreenPop> {
    return this.screenPops.screenPop(principal, id);
  }

  @Get('conversations/:id/call')
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: 'The inbound call behind a phone conversation: numbers, IVR path, stage, abandon stage, times' })
  @ApiErrors(400, 401, 403, 404)
  call(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<VoiceCallView> {
    return this.calls.callOfConversation(principal.clientId, id);
  }

  @Get('conversations/:id/monitor')
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @ApiOperation({
    summary: "The live call's monitoring, and whether the signed-in supervisor can start it (call connected, own softphone)",
  })
  @ApiErrors(400, 401, 403, 404)
  monitorStatus(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<VoiceMonitorStatus> {
    return this.monitoring.status(principal, id);
  }

  @Post('conversations/:id/monitor')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @ApiOperation({
    summary:
      "Monitor the live call of a phone conversation with the supervisor's own softphone: listen, whisper (only the agent hears the supervisor) or barge (three-way). The softphone rings; the call's monitor state becomes 'active' when it answers. 409 when the call is not connected to an agent, someone already monitors it, or the supervisor has no softphone",
  })
  @ApiErrors(400, 401, 403, 404, 409)
  startMonitoring(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: MonitorModeDto,
  ): Promise<VoiceMonitorView> {
    return this.monitoring.start(principal, id, body.mode);
  }

  @Patch('conversations/:id/monitor')
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @ApiOperation({ summary: "Switch the caller's own running monitoring to another mode (409 when they are not monitoring the call)" })
  @ApiErrors(400, 401, 403, 404, 409)
  switchMonitoring(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUuidPipe) id: string,
    @Body() body: MonitorModeDto,
  ): Promise<VoiceMonitorView> {
    return this.monitoring.setMode(principal, id, body.mode);
  }

  @Delete('conversations/:id/monitor')
  @RequirePermission(PERMISSIONS.conversationsSupervise)
  @ApiOperation({
    summary: "Stop the call's monitoring: the supervisor's softphone is hung up, caller and agent talk on (409 when nobody monitors it)",
  })
  @ApiErrors(401, 403, 404, 409)
  stopMonitoring(@CurrentPrincipal() principal: Principal, @Param('id', ParseUuidPipe) id: string): Promise<VoiceMonitorView> {
    return this.monitoring.stop(principal, id);
  }
}
