import type { ResetTokenCheck } from '@centralita/contracts';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, MoreThan } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AppException } from '../../common/app.exception';
import { MailQueueService } from '../mail/mail-queue.service';
import { renderPasswordResetMail } from '../mail/password-reset.mail';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { User } from '../users/user.entity';
import { hashPassword } from './password-hasher';
import { assertStrongPassword } from './password-policy';
import { PasswordResetToken } from './password-reset-token.entity';
import { randomToken, sha256 } from './refresh-token.service';
import { SessionsService } from './sessions.service';

/** Reset links: random, stored hashed, single use, 30 minutes; using one ends every session. */
@Injectable()
export class PasswordResetService {
  private readonly logger = new Logger(PasswordResetService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly rateLimiter: RateLimiterService,
    private readonly mail: MailQueueService,
    private readonly sessions: SessionsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Same answer whether or not the account exists, so the endpoint reveals nothing. */
  async request(email: string, ip: string | null): Promise<void> {
    const { resetPerIp, resetPerAccount } = this.config.rateLimits;
    await this.rateLimiter.consume('reset-ip', ip ?? 'unknown', resetPerIp);
    await this.rateLimiter.consume('reset-account', email, resetPerAccount);

    const user = await this.dataSource.manager.findOne(User, { where: { email, active: true } });
    if (!user) return;
    // The link is made and mailed after the answer: a known email answers as fast as an unknown one.
    void this.sendLink(user, ip).catch((error: unknown) =>
      this.logger.error(`password reset link for user ${user.id} failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  private async sendLink(user: User, ip: string | null): Promise<void> {
    const token = randomToken();
    const expiresAt = new Date(Date.now() + this.config.session.resetTokenTtlSeconds * 1000);
    await this.dataSource.transaction(async (manager) => {
      // Only the newest link works: earlier unused ones are spent.
      await manager.update(PasswordResetToken, { userId: user.id, usedAt: IsNull() }, { usedAt: new Date() });
      await manager.insert(PasswordResetToken, {
        userId: user.id,
        tokenHash: sha256(token),
        expiresAt,
        requestedIp: ip?.slice(0, 64) ?? null,
      });
    });
    const link = `${this.config.publicUrl}/session/resetPassword/${token}`;
    await this.mail.enqueue(
      renderPasswordResetMail({
        to: user.email,
        name: user.name,
        link,
        validMinutes: Math.round(this.config.session.resetTokenTtlSeconds / 60),
      }),
      user.clientId,
    );
    this.logger.log(`password reset link queued for user ${user.id}`);
  }

  async check(token: string): Promise<ResetTokenCheck> {
    const row = await this.dataSource.manager.findOne(PasswordResetToken, {
      where: { tokenHash: sha256(token), usedAt: IsNull(), expiresAt: MoreThan(new Date()) },
    });
    if (!row) throw new AppException('reset_token_invalid');
    return { valid: true, expiresAt: row.expiresAt.toISOString() };
  }

  async reset(token: string, password: string): Promise<void> {
    // The strength rule needs the account's email and name; a weak password leaves the link unspent.
    const pending = await this.dataSource.manager.findOne(PasswordResetToken, {
      where: { tokenHash: sha256(token), usedAt: IsNull(), expiresAt: MoreThan(new Date()) },
      relations: { user: true },
    });
    if (!pending?.user) throw new AppException('reset_token_invalid');
    assertStrongPassword(password, { email: pending.user.email, name: pending.user.name });
    const passwordHash = await hashPassword(password);
    const outcome = await this.dataSource.transaction(async (manager) => {
      const claimed = await manager
        .createQueryBuilder()
        .update(PasswordResetToken)
        .set({ usedAt: () => 'now()' })
        .where('token_hash = :hash AND used_at IS NULL AND expires_at > now()', { hash: sha256(token) })
        .returning(['userId'])
        .execute();
      const userId = (claimed.raw as { user_id: string }[])[0]?.user_id;
      if (!userId) return null;
      await manager.update(User, { id: userId }, { passwordHash, passwordExpiresAt: null });
      return { userId, families: await this.sessions.endAllSessionsIn(manager, userId) };
    });
    if (!outcome) throw new AppException('reset_token_invalid');
    await this.sessions.afterChange(outcome.userId, outcome.families);
  }
}
