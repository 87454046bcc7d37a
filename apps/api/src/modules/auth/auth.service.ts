import { PERMISSIONS, type AuthResult, type Profile, type SessionUser, type TokenPair } from '@centralita/contracts';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AppException } from '../../common/app.exception';
import { PlatformSettingsService } from '../platform-settings/platform-settings.service';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { toSessionUser } from '../users/session-user';
import { User } from '../users/user.entity';
import { AccessTokenService } from './access-token.service';
import { hashPassword, needsRehash, verifyPassword } from './password-hasher';
import type { Principal } from './principal';
import { RefreshTokenService, type ClientMeta } from './refresh-token.service';

@Injectable()
export class AuthService implements OnModuleInit {
  /** Verified against when the email is unknown, so both cases take the same time. */
  private dummyHash = '';

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accessTokens: AccessTokenService,
    private readonly refreshTokens: RefreshTokenService,
    private readonly rateLimiter: RateLimiterService,
    private readonly platformSettings: PlatformSettingsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    this.dummyHash = await hashPassword('centralita-timing-equaliser');
  }

  async login(email: string, password: string, meta: ClientMeta): Promise<AuthResult> {
    const { loginPerIp, loginPerAccount } = this.config.rateLimits;
    await this.rateLimiter.consume('login-ip', meta.ip ?? 'unknown', loginPerIp);
    await this.rateLimiter.consume('login-account', email, loginPerAccount);

    const user = await this.findUser({ email });
    const valid = await verifyPassword(user?.passwordHash ?? this.dummyHash, password);
    if (!user || !valid) throw new AppException('invalid_credentials');
    if (!user.active) throw new AppException('account_disabled');
    if (user.passwordExpiresAt && user.passwordExpiresAt.getTime() <= Date.now()) throw new AppException('password_expired');

    // A correct password clears the account's counter: a user's own successes never lock them out.
    await this.rateLimiter.reset('login-account', email, loginPerAccount);
    const changes: Partial<User> = { lastLoginAt: new Date() };
    if (needsRehash(user.passwordHash)) changes.passwordHash = await hashPassword(password);
    await this.dataSource.manager.update(User, { id: user.id }, changes);
    return this.startSession(user, meta);
  }

  async refresh(refreshToken: string | undefined, meta: ClientMeta, expectedUserId?: string): Promise<TokenPair> {
    if (!refreshToken) throw new AppException('refresh_token_invalid');
    const { user, issued } = await this.refreshTokens.rotate(refreshToken, meta, expectedUserId);
    const accessToken = this.accessTokens.sign({
      userId: user.id,
      clientId: user.clientId,
      sessionId: issued.familyId,
      tokenVersion: user.tokenVersion,
    });
    return { accessToken, refreshToken: issued.token };
  }

  /** Ends the caller's current session (its refresh family and the access tokens issued from it). */
  async logout(principal: Principal, userId: string): Promise<void> {
    if (userId !== principal.userId) throw AppException.forbidden('You can only sign yourself out.');
    await this.refreshTokens.revokeFamily(principal.sessionId);
  }

  /** The caller, or another user of the caller's tenant when the caller manages users. */
  async userInfo(principal: Principal, userId?: string): Promise<SessionUser> {
    const target = userId ?? principal.userId;
    if (target !== principal.userId && !principal.permissions.includes(PERMISSIONS.usersManage)) throw AppException.forbidden();
    const user = await this.findUser({ id: target, clientId: principal.clientId });
    if (!user) throw AppException.notFound();
    return this.sessionUser(user);
  }

  async profile(principal: Principal): Promise<Profile> {
    const user = await this.findUser({ id: principal.userId, clientId: principal.clientId });
    if (!user?.role) throw AppException.notFound();
    return {
      ...(await this.sessionUser(user)),
      roleName: user.role.name,
      lastLoginAt: user.lastLoginAt?.toISOString() ?? null,
      passwordExpiresAt: user.passwordExpiresAt?.toISOString() ?? null,
    };
  }

  /** Signs in a user who just proved who they are another way (an accepted invitation). */
  async signInAs(userId: string, meta: ClientMeta): Promise<AuthResult> {
    const user = await this.findUser({ id: userId });
    if (!user?.active) throw new AppException('account_disabled');
    await this.dataSource.manager.update(User, { id: user.id }, { lastLoginAt: new Date() });
    return this.startSession(user, meta);
  }

  private async startSession(user: User, meta: ClientMeta): Promise<AuthResult> {
    const issued = await this.refreshTokens.issue(user, meta);
    const accessToken = this.accessTokens.sign({
      userId: user.id,
      clientId: user.clientId,
      sessionId: issued.familyId,
      tokenVersion: user.tokenVersion,
    });
    return { accessToken, refreshToken: issued.token, user: await this.sessionUser(user) };
  }

  private async sessionUser(user: User): Promise<SessionUser> {
    return toSessionUser(user, await this.platformSettings.idleLogoutMinutes(user.clientId));
  }

  private findUser(where: { id?: string; email?: string; clientId?: string }): Promise<User | null> {
    return this.dataSource.manager.findOne(User, { where, relations: { role: true, client: true } });
  }
}
