import { CALL_DIRECTIONS, CALL_DISPOSITIONS, CALL_NOTES_MAX, type CallDirection, type CallDisposition } from '@centralita/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import { Trim } from '../../common/transforms';

/** A call longer than a day is a client clock error, not a call (and call durations are SQL integers). */
const MAX_CALL_SECONDS = 86_400;

export class SoftphoneConfigDto {
  @ApiProperty({ example: 'wss://sip.example.com:8443', description: 'WebSocket (ws:// or wss://) URL of the SIP server' })
  @Trim()
  @Matches(/^wss?:\/\/[^\s/]+(\/\S*)?$/, { message: 'wsUrl must be a ws:// or wss:// URL' })
  @MaxLength(300)
  @IsString()
  wsUrl!: string;

  @ApiProperty({ example: 'sip.example.com' })
  @Trim()
  @Matches(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, { message: 'domain must be a host name or IP address' })
  @Length(1, 200)
  @IsString()
  domain!: string;

  @ApiPropertyOptional({ type: [String], example: ['stun:stun.example.com:3478'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(5)
  @Matches(/^(stun|turn|turns):\S{1,290}$/, { each: true, message: 'iceServers must be stun:, turn: or turns: URLs' })
  iceServers?: string[];
}

export class SoftphoneAccountDto {
  @ApiProperty({ example: '1001', description: "The agent's extension (the user part of their SIP address)" })
  @Trim()
  @Matches(/^[A-Za-z0-9_.+-]{1,40}$/, { message: 'extension must be 1 to 40 letters, digits, "_", ".", "+" or "-"' })
  @IsString()
  extension!: string;

  @ApiPropertyOptional({ description: 'Authentication user; defaults to the extension' })
  @IsOptional()
  @Trim()
  @Matches(/^[A-Za-z0-9_.+@-]{0,80}$/, { message: 'authUser must be at most 80 letters, digits or "_.+@-"' })
  @IsString()
  authUser?: string;

  @ApiPropertyOptional({ description: "'' clears it; the mask keeps the stored one" })
  @IsOptional()
  @MaxLength(200)
  @IsString()
  password?: string;
}

export class LookupQueryDto {
  @ApiProperty({ example: '+50688887777' })
  @Trim()
  @Length(1, 80, { message: 'number is required' })
  @IsString()
  number!: string;
}

export class CallDispositionDto {
  @ApiProperty({ description: 'SIP Call-ID of the call' })
  @Trim()
  @Length(1, 200, { message: 'callId is required' })
  @IsString()
  callId!: string;

  @ApiProperty({ enum: CALL_DIRECTIONS })
  @IsIn(CALL_DIRECTIONS, { message: `direction must be one of ${CALL_DIRECTIONS.join(', ')}` })
  direction!: CallDirection;

  @ApiProperty()
  @Trim()
  @Length(1, 80, { message: 'remoteNumber is required' })
  @IsString()
  remoteNumber!: string;

  @ApiProperty({ enum: CALL_DISPOSITIONS })
  @IsIn(CALL_DISPOSITIONS, { message: `disposition must be one of ${CALL_DISPOSITIONS.join(', ')}` })
  disposition!: CallDisposition;

  @ApiPropertyOptional({ maxLength: CALL_NOTES_MAX })
  @IsOptional()
  @MaxLength(CALL_NOTES_MAX, { message: `notes must be at most ${CALL_NOTES_MAX} characters` })
  @IsString()
  notes?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @MaxLength(160)
  @IsString()
  contactName?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: MAX_CALL_SECONDS })
  @IsOptional()
  @Max(MAX_CALL_SECONDS)
  @Min(0)
  @IsInt()
  durationSeconds?: number;
}

export class CallEndedDto {
  @ApiPropertyOptional({ enum: CALL_DISPOSITIONS })
  @IsOptional()
  @IsIn(CALL_DISPOSITIONS, { message: `disposition must be one of ${CALL_DISPOSITIONS.join(', ')}` })
  disposition?: CallDisposition;
}
