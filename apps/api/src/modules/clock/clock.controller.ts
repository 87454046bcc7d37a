import type { ClockReading } from '@centralita/contracts';
import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsInt, IsOptional, Min } from 'class-validator';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { ToInt } from '../../common/transforms';
import { Authenticated } from '../auth/access.decorator';

export class ClockQueryDto {
  @ApiPropertyOptional({ description: 'The caller’s clock when it sent the request (epoch ms), echoed back' })
  @IsOptional()
  @ToInt()
  @Min(0)
  @IsInt()
  clientTime?: number;
}

export class ClockReadingDto implements ClockReading {
  @ApiProperty() serverTime!: number;
  @ApiProperty({ nullable: true, type: Number }) clientTime!: number | null;
}

/**
 * Server time for the console's live counters (time in state, waiting time): they are computed
 * from server timestamps, so the browser corrects its own clock by the measured offset.
 * Deliberately touches neither PostgreSQL nor the role tables, so it is also the benchmark of the
 * bare request pipeline (guard, validation, envelope; QUALITY.md P4).
 */
@ApiTags('clock')
@Controller('clock')
export class ClockController {
  @Get()
  @Authenticated()
  @ApiOperation({ summary: 'Server time, echoing the caller’s clientTime so it can estimate its clock offset' })
  @ApiEnvelope(ClockReadingDto)
  @ApiErrors(400, 401)
  read(@Query() query: ClockQueryDto): ClockReading {
    return { serverTime: Date.now(), clientTime: query.clientTime ?? null };
  }
}
