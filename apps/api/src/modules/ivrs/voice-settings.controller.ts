import { pipeline } from 'node:stream/promises';
import { IVR_PROMPT_UPLOAD, PERMISSIONS, VOICE_QUEUE_ANNOUNCEMENT, type VoiceSettings } from '@centralita/contracts';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Post, Put, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsInt, IsOptional } from 'class-validator';
import type { Response } from 'express';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import type { UploadedAudio } from './ivr-prompts.service';
import { VoiceSettingsService } from './voice-settings.service';

/** The multipart parser stops one byte over the limit, so the service still names the limit. */
const HOLD_MUSIC_UPLOAD = FileInterceptor('file', { limits: { fileSize: IVR_PROMPT_UPLOAD.maxBytes + 1, files: 1, fields: 2, parts: 3 } });

/** Types only; validateVoiceSettings() (shared with the console) holds the rule. */
class VoiceSettingsInputDto implements Partial<VoiceSettings> {
  @ApiPropertyOptional({
    minimum: VOICE_QUEUE_ANNOUNCEMENT.min,
    maximum: VOICE_QUEUE_ANNOUNCEMENT.max,
    default: VOICE_QUEUE_ANNOUNCEMENT.default,
    description: 'Seconds between queue position announcements (0 = never)',
  })
  @IsOptional()
  @IsInt()
  queueAnnouncementSeconds?: number;
}

class VoiceSettingsDto {
  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: "The tenant's hold music; null = the built-in one" })
  holdMusicFileId!: string | null;
  @ApiProperty() queueAnnouncementSeconds!: number;
}

@ApiTags('IVRs')
@ApiBearerAuth('bearer')
@Controller('voice-settings')
export class VoiceSettingsController {
  constructor(private readonly settings: VoiceSettingsService) {}

  @Get()
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: "The tenant's hold music and queue position announcement interval" })
  @ApiEnvelope(VoiceSettingsDto)
  @ApiErrors(401, 403)
  get(@CurrentPrincipal() principal: Principal): Promise<VoiceSettings> {
    return this.settings.get(principal.clientId);
  }

  @Put()
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: 'Sets how often a queued caller hears their position (0 = never)' })
  @ApiEnvelope(VoiceSettingsDto)
  @ApiErrors(400, 401, 403)
  update(@Body() body: VoiceSettingsInputDto, @CurrentPrincipal() principal: Principal): Promise<VoiceSettings> {
    return this.settings.update(principal, body);
  }

  @Post('hold-music')
  @HttpCode(HttpStatus.OK)
  @RequirePermission(PERMISSIONS.ivrsManage)
  @UseInterceptors(HOLD_MUSIC_UPLOAD)
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } })
  @ApiOperation({
    summary: `Uploads the tenant's hold music (wav, mp3 or ogg, at most ${IVR_PROMPT_UPLOAD.maxBytes / (1024 * 1024)} MB, cut at ${IVR_PROMPT_UPLOAD.maxSeconds} s, looped), converted to 8 kHz mono 16-bit WAV`,
  })
  @ApiEnvelope(VoiceSettingsDto)
  @ApiErrors(400, 401, 403, 413, 503)
  setHoldMusic(@UploadedFile() file: UploadedAudio | undefined, @CurrentPrincipal() principal: Principal) {
    return this.settings.setHoldMusic(principal, file);
  }

  @Delete('hold-music')
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: 'Goes back to the built-in hold music' })
  @ApiEnvelope(VoiceSettingsDto)
  @ApiErrors(401, 403)
  clearHoldMusic(@CurrentPrincipal() principal: Principal): Promise<VoiceSettings> {
    return this.settings.clearHoldMusic(principal);
  }

  @Get('hold-music')
  @RequirePermission(PERMISSIONS.ivrsManage)
  @ApiOperation({ summary: "Plays the tenant's hold music as audio/wav (404 while the built-in one is used)" })
  @ApiErrors(401, 403, 404)
  async holdMusic(@CurrentPrincipal() principal: Principal, @Res() res: Response): Promise<void> {
    const file = await this.settings.openHoldMusic(principal.clientId);
    res.status(200);
    res.setHeader('Content-Type', 'audio/wav');
    res.setHeader('Content-Length', String(file.byteSize));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'private, no-cache');
    await pipeline(file.stream, res);
  }
}
