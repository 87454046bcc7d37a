import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

export class StartRecordingDto {
  @ApiProperty({ example: 'video/webm;codecs=vp8,opus', description: 'What MediaRecorder records (WebM only)' })
  @IsString()
  @MaxLength(80)
  @Matches(/^(video|audio)\/webm(;\s*codecs=[A-Za-z0-9.,]+)?$/, {
    message: 'mimeType must be video/webm or audio/webm (with optional codecs)',
  })
  mimeType!: string;
}

export class JoinVideoDto {
  @ApiPropertyOptional({ description: 'The customer agreed on the page to the call being recorded' })
  @IsOptional()
  @IsBoolean()
  recordingConsent?: boolean;
}

export class VideoConsentDto {
  @ApiProperty({ description: 'The customer agrees (true) or no longer agrees (false) to the call being recorded' })
  @IsBoolean()
  consent!: boolean;
}
