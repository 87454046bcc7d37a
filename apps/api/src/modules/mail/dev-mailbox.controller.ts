import { devMailboxKey, DEV_MAILBOX, PERMISSIONS, type DevMailboxEntry } from '@centralita/contracts';
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { IsEmail, IsOptional } from 'class-validator';
import type Redis from 'ioredis';
import { DataSource, In } from 'typeorm';
import { ApiEnvelope, ApiErrors } from '../../common/api-envelope.decorator';
import { NormalizeEmail } from '../../common/transforms';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { RequirePermission } from '../auth/access.decorator';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { REDIS } from '../redis/redis.module';
import { User } from '../users/user.entity';

export class DevMailboxQueryDto {
  @IsOptional()
  @NormalizeEmail()
  @IsEmail()
  to?: string;
}

/**
 * Mail the worker kept because no SMTP server is configured. It exists only with DEV_MAILBOX=on
 * (never in production, see MailModule and loadConfig), and even then holds reset and invitation
 * links: only administrators (users.manage) read it, and each only the mail of their own
 * organisation — the one the mail was sent for, or, for mail that names none, mail addressed to
 * a user of it.
 */
@ApiTags('development')
@Controller('dev/mailbox')
export class DevMailboxController {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @RequirePermission(PERMISSIONS.usersManage)
  @ApiBearerAuth()
  @ApiOperation({ summary: "Newest mails of the caller's organisation kept by the worker without SMTP (DEV_MAILBOX=on only)" })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403)
  async list(@Query() query: DevMailboxQueryDto, @CurrentPrincipal() principal: Principal): Promise<DevMailboxEntry[]> {
    const raw = await this.redis.lrange(devMailboxKey(this.config.queuePrefix), 0, DEV_MAILBOX.limit - 1);
    const entries = raw.flatMap((item) => {
      try {
        return [JSON.parse(item) as DevMailboxEntry];
      } catch {
        return [];
      }
    });
    const addressed = query.to ? entries.filter((entry) => entry.to.toLowerCase() === query.to) : entries;
    const unlabelled = [...new Set(addressed.filter((entry) => !entry.clientId).map((entry) => entry.to.toLowerCase()))];
    const members = unlabelled.length
      ? new Set(
          (
            await this.dataSource.manager.find(User, {
              where: { email: In(unlabelled), clientId: principal.clientId },
              select: { email: true },
            })
          ).map((user) => user.email.toLowerCase()),
        )
      : new Set<string>();
    return addressed.filter((entry) => (entry.clientId ? entry.clientId === principal.clientId : members.has(entry.to.toLowerCase())));
  }
}
