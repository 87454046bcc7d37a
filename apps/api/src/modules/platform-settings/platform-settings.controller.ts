import { PERMISSIONS, type ChannelConfigView, type PlatformSettings } from '@centralita/contracts';
import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsInt, IsObject, IsOptional, IsString } from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { PlatformSettingsService } from './platform-settings.service';

export class PlatformSettingsDto {
  @ApiProperty() @IsOptional() @IsString() welcomeMessage?: string;
  @ApiProperty() @IsOptional() @IsString() offHoursMessage?: string;
  @ApiProperty({ minimum: 5, maximum: 1440 }) @IsOptional() @IsInt() idleLogoutMinutes?: number;
  @ApiProperty({ minimum: 30, maximum: 86400 }) @IsOptional() @IsInt() maxQueueWaitSeconds?: number;
  @ApiProperty({ type: [String] }) @IsOptional() @IsString({ each: true }) @IsArray() emoticons?: string[];
  @ApiPropertyOptional({ description: 'Record inbound calls from the agent’s answer (default false)' })
  @IsOptional()
  @IsBoolean()
  callRecording?: boolean;
  @ApiPropertyOptional({ description: 'Tell callers the call is recorded before the agent is rung (default true)' })
  @IsOptional()
  @IsBoolean()
  announceCallRecording?: boolean;
  @ApiPropertyOptional({ minimum: 1, maximum: 3650, description: 'Days recordings are kept (default 90)' })
  @IsOptional()
  @IsInt()
  callRecordingRetentionDays?: number;
}

export class ChannelConfigDto {
  @ApiPropertyOptional() @IsOptional() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional({ type: Object, description: 'Non-secret fields of CHANNEL_FIELDS[channel].settings' })
  @IsOptional()
  @IsObject()
  settings?: Record<string, string>;
  @ApiPropertyOptional({ type: Object, description: "Secrets: a value replaces, '' clears, the mask keeps" })
  @IsOptional()
  @IsObject()
  secrets?: Record<string, string>;
}

@ApiTags('settings')
@ApiBearerAuth()
@Controller()
export class PlatformSettingsController {
  constructor(private readonly settings: PlatformSettingsService) {}

  @Get('platform-settings')
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({ summary: "The tenant's platform settings and emoticons (defaults until saved)" })
  @ApiEnvelope(null)
  @ApiErrors(401, 403)
  get(@CurrentPrincipal() principal: Principal): Promise<PlatformSettings> {
    return this.settings.getSettings(principal.clientId);
  }

  @Put('platform-settings')
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({ summary: 'Replaces the platform settings' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403)
  put(@Body() body: PlatformSettingsDto, @CurrentPrincipal() principal: Principal): Promise<PlatformSettings> {
    return this.settings.saveSettings(principal, body);
  }

  @Get('channels-config')
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({ summary: 'Every channel with its configuration; secrets masked, never in clear' })
  @ApiEnvelope(null)
  @ApiErrors(401, 403)
  channels(@CurrentPrincipal() principal: Principal): Promise<ChannelConfigView[]> {
    return this.settings.listChannels(principal.clientId);
  }

  @Put('channels-config/:channel')
  @RequirePermission(PERMISSIONS.settingsManage)
  @ApiOperation({ summary: 'Saves one channel (secrets encrypted at rest with AES-256-GCM)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404)
  putChannel(
    @Param('channel') channel: string,
    @Body() body: ChannelConfigDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ChannelConfigView> {
    return this.settings.saveChannel(principal, channel, body);
  }
}
