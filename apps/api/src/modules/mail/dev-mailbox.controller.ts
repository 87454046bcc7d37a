import { devMailboxKey, DEV_MAILBOX, type DevMailboxEntry } from '@centralita/contracts';
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { IsEmail, IsOptional } from 'class-validator';
import type Redis from 'ioredis';
import { ApiEnvelope } from '../../common/api-envelope.decorator';
import { NormalizeEmail } from '../../common/transforms';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { Public } from '../auth/access.decorator';
import { REDIS } from '../redis/redis.module';

export class DevMailboxQueryDto {
  @IsOptional()
  @NormalizeEmail()
  @IsEmail()
  to?: string;
}

/**
 * Mail the worker kept because no SMTP server is configured. Registered only when
 * NODE_ENV !== 'production' (see MailModule), so it does not exist in production.
 */
@ApiTags('development')
@Controller('dev/mailbox')
export class DevMailboxController {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Newest mails kept by the worker without SMTP (development only)' })
  @ApiEnvelope(null)
  async list(@Query() query: DevMailboxQueryDto): Promise<DevMailboxEntry[]> {
    const raw = await this.redis.lrange(devMailboxKey(this.config.queuePrefix), 0, DEV_MAILBOX.limit - 1);
    const entries = raw.map((item) => JSON.parse(item) as DevMailboxEntry);
    return query.to ? entries.filter((entry) => entry.to.toLowerCase() === query.to) : entries;
  }
}
