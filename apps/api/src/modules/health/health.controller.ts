import type { HealthReport } from '@centralita/contracts';
import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { AppException } from '../../common/app.exception';
import { Public } from '../auth/access.decorator';
import { HealthService } from './health.service';

export class HealthReportDto implements HealthReport {
  @ApiProperty({ enum: ['up', 'down'] }) database!: 'up' | 'down';
  @ApiProperty({ enum: ['up', 'down'] }) redis!: 'up' | 'down';
  @ApiProperty({
    enum: ['connected', 'notConnected'],
    description: "The phone channel: a worker's voice server is running and reaches rtpengine",
  })
  voice!: 'connected' | 'notConnected';
}

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'PostgreSQL and Redis reachability; 503 (same data) when either is down' })
  @ApiEnvelope(HealthReportDto)
  @ApiErrors(503)
  async get(): Promise<HealthReport> {
    const report = await this.health.check();
    if (report.database === 'down' || report.redis === 'down') throw new AppException('service_unavailable', { data: report });
    return report;
  }
}
