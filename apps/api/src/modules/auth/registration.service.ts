import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AppException } from '../../common/app.exception';
import { isUniqueViolation } from '../admin/rule-check';
import { MailQueueService } from '../mail/mail-queue.service';
import { renderAlreadyRegisteredMail, renderRegistrationMail } from '../mail/registration.mail';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { ensureReseller, provisionClient } from '../tenancy/client-provisioning';
import { Reseller } from '../tenancy/reseller.entity';
import { User } from '../users/user.entity';
import { hashPassword } from './password-hasher';
import { assertStrongPassword } from './password-policy';
import { randomToken, sha256 } from './refresh-token.service';
import { RegistrationRequest } from './registration-request.entity';

/** Reseller of self-registered tenants when SELF_REGISTRATION_RESELLER_ID is not set. */
export const SELF_SERVICE_RESELLER_NAME = 'Self-service';
const LINK_TTL_HOURS = 24;

/**
 * Self-registration (SELF_REGISTRATION=on; off by default). A registration never joins an existing
 * tenant and never signs anyone in: it answers "check your email" whatever the address, mails a
 * confirmation link to a new address and a "you already have an account" notice to a known one,
 * and only the link creates a NEW tenant whose first ADMIN is the new user. The answer, its timing
 * (the password is hashed and the mail sent after answering, in both cases) and its errors are the
 * same for both, so the form reveals nothing about which addresses have accounts.
 */
@Injectable()
export class RegistrationService {
  private readonly logger = new Logger(RegistrationService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly rateLimiter: RateLimiterService,
    private readonly mail: MailQueueService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get enabled(): boolean {
    return this.config.selfRegistration.enabled;
  }

  private assertEnabled(): void {
    if (!this.enabled) throw AppException.forbidden('Self-registration is disabled.');
  }

  async register(input: { email: string; username: string; password: string }, ip: string | null): Promise<void> {
    this.assertEnabled();
    const { loginPerIp, resetPerAccount } = this.config.rateLimits;
    await this.rateLimiter.consume('register-ip', ip ?? 'unknown', loginPerIp);
    // The rule depends on what was typed only, never on whether the address is known.
    assertStrongPassword(input.password, { email: input.email, name: input.username });
    // Bounds the mail one address can be sent, whether or not it has an account.
    await this.rateLimiter.consume('register-account', input.email, resetPerAccount);
    void this.followUp(input, ip).catch((error: unknown) =>
      this.logger.error(`registration follow-up failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  private async followUp(input: { email: string; username: string; password: string }, ip: string | null): Promise<void> {
    const existing = await this.dataSource.manager.findOne(User, { where: { email: input.email } });
    if (existing) {
      await this.mail.enqueue(
        renderAlreadyRegisteredMail({
          to: existing.email,
          name: existing.name,
          signInLink: `${this.config.publicUrl}/session/signin`,
          resetLink: `${this.config.publicUrl}/session/forgot-password`,
        }),
        existing.clientId,
      );
      this.logger.log(`registration attempt for the existing user ${existing.id}: notice queued`);
      return;
    }
    const passwordHash = await hashPassword(input.password);
    const token = randomToken();
    await this.dataSource.manager.insert(RegistrationRequest, {
      email: input.email,
      name: input.username,
      passwordHash,
      tokenHash: sha256(token),
      expiresAt: new Date(Date.now() + LINK_TTL_HOURS * 3600 * 1000),
      requestedIp: ip?.slice(0, 64) ?? null,
    });
    // No organisation exists yet: the dev mailbox shows this mail to nobody (only the worker log has it).
    await this.mail.enqueue(
      renderRegistrationMail({
        to: input.email,
        name: input.username,
        link: `${this.config.publicUrl}/session/activate/${token}`,
        validHours: LINK_TTL_HOURS,
      }),
      null,
    );
    this.logger.log('registration confirmation link queued');
  }

  /**
   * Spends the link and creates the new tenant (built-in roles) with the user as its ADMIN, in one
   * transaction. A link that is unknown, spent, expired, or whose address got an account meanwhile
   * answers registration_link_invalid and changes nothing.
   */
  async confirm(token: string, ip: string | null): Promise<{ email: string }> {
    this.assertEnabled();
    await this.rateLimiter.consume('register-confirm-ip', ip ?? 'unknown', this.config.rateLimits.resetPerIp);
    const created = await this.dataSource
      .transaction(async (manager) => {
        const claimed = await manager
          .createQueryBuilder()
          .update(RegistrationRequest)
          .set({ confirmedAt: () => 'now()' })
          .where('token_hash = :hash AND confirmed_at IS NULL AND expires_at > now()', { hash: sha256(token) })
          .returning(['id', 'email', 'name', 'passwordHash'])
          .execute();
        const request = (claimed.raw as { id: string; email: string; name: string; password_hash: string }[])[0];
        if (!request) return null;
        if (await manager.exists(User, { where: { email: request.email } })) return null;

        const resellerId = this.config.selfRegistration.resellerId;
        const reseller = resellerId
          ? await manager.findOne(Reseller, { where: { id: resellerId } })
          : await ensureReseller(manager, SELF_SERVICE_RESELLER_NAME);
        if (!reseller) {
          this.logger.error(`SELF_REGISTRATION_RESELLER_ID ${resellerId} is not a reseller: registration cannot complete`);
          throw new AppException('service_unavailable');
        }
        const clientId = randomUUID();
        const { client, roles } = await provisionClient(manager, {
          id: clientId,
          resellerId: reseller.id,
          // Unique within the reseller whatever the chosen name; the new admin can rename it.
          name: `${request.name.slice(0, 140)} · ${clientId.slice(0, 8)}`,
        });
        const admin = roles.get('ADMIN');
        if (client.id !== clientId || !admin) throw new AppException('internal');
        await manager.insert(User, {
          clientId,
          roleId: admin.id,
          email: request.email,
          name: request.name,
          passwordHash: request.password_hash,
        });
        return { email: request.email, clientId };
      })
      // Two links of one address confirmed at once: the unique email decides, the loser changes nothing.
      .catch((error: unknown) => {
        if (isUniqueViolation(error, 'uq_users_email')) return null;
        throw error;
      });
    if (!created) throw new AppException('registration_link_invalid');
    this.logger.log(`self-registration confirmed: new tenant ${created.clientId}`);
    return { email: created.email };
  }
}
