import {
  VICIDIAL_API_TOKEN_PREFIX,
  VICIDIAL_API_TOKEN_TTL_SECONDS,
  type ApiViciTokenResult,
  type AuthResult,
  type ExternLoginVicidialRequest,
  type ExternLoginVicidialResult,
} from '@centralita/contracts';
import { OutgoingAddressPolicy } from '@centralita/contracts/server';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AuthService } from '../auth/auth.service';
import type { ClientMeta } from '../auth/refresh-token.service';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { VICIDIAL_CONFIG, type VicidialConfig } from './vicidial-config';
import {
  checkCallback,
  LINK_TOKEN_PATTERN,
  linkUrl,
  looksLikeKey,
  newLinkToken,
  returnedRows,
  sha256Hex,
  signApiToken,
  verifyApiToken,
} from './vicidial-links';

interface KeyRow {
  id: string;
  tenant_id: string;
  name: string;
  callback_origins: string[];
}

interface AgentRow {
  id: string;
  email: string;
  active: boolean;
  role_code: string;
}

interface LinkRow {
  id: string;
  tenant_id: string;
  key_id: string;
  user_id: string;
  callback: string | null;
  used_at: Date | null;
  expires_at: Date;
  key_revoked: boolean;
}

/** The only role a key may sign in: never a supervisor, an administrator or anyone above the tenant. */
const SIGNABLE_ROLE = 'AGENT';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const LINK_INVALID_MESSAGE = 'This sign-in link is invalid, has expired or was already used.';

/**
 * The external dialer sign-in (spec: ExternLoginVicidial, /session/vicidial/{id}[/{callback}]).
 * A key holder asks for a link for one active agent of the key's tenant; the link's random id is
 * stored as its SHA-256, expires after VICIDIAL_LINK_TTL_SECONDS and is claimed by one conditional
 * UPDATE, so two opens of one link sign in once. Opening it starts an ordinary session through
 * AuthService (same tokens, same refresh families, so "end all sessions" ends it too). Every issue,
 * use and refused use leaves an audit_log row naming the key and the agent.
 */
@Injectable()
export class VicidialLoginService {
  private readonly logger = new Logger(VicidialLoginService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly auth: AuthService,
    private readonly rateLimiter: RateLimiterService,
    private readonly outgoing: OutgoingAddressPolicy,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(VICIDIAL_CONFIG) private readonly vicidial: VicidialConfig,
  ) {}

  async issue(rawKey: string | null, body: ExternLoginVicidialRequest, ip: string | null): Promise<ExternLoginVicidialResult> {
    await this.rateLimiter.consume('vicidial-issue-ip', ip ?? 'unknown', this.vicidial.issuePerIp);
    const key = await this.findKey(rawKey);
    await this.rateLimiter.consume('vicidial-issue-key', key.id, this.vicidial.issuePerKey);

    const agent = await this.findAgent(key.tenant_id, body.agent);
    let callback: string | null = null;
    if (body.callback !== undefined && body.callback !== null && body.callback !== '') {
      const checked = checkCallback(body.callback, key.callback_origins, this.outgoing);
      if (!checked.ok)
        throw new AppException('validation', { message: checked.problem, data: { fields: { callback: [checked.problem] } } });
      callback = checked.callback;
    }

    const token = newLinkToken();
    const expiresAt = await this.dataSource.transaction(async (manager) => {
      const [link] = await manager.query<{ id: string; expires_at: Date }[]>(
        `INSERT INTO vicidial_login_links (tenant_id, key_id, user_id, token_hash, callback, issued_ip, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7)) RETURNING id, expires_at`,
        [key.tenant_id, key.id, agent.id, sha256Hex(token), callback, ip, this.vicidial.linkTtlSeconds],
      );
      await manager.query(`UPDATE integration_keys SET last_used_at = now() WHERE id = $1`, [key.id]);
      await this.auditLink(manager, key.tenant_id, key.name, link.id, 'create', {
        event: 'issued',
        keyId: key.id,
        keyName: key.name,
        agentId: agent.id,
        agentEmail: agent.email,
        callback,
        ip,
        expiresAt: link.expires_at.toISOString(),
      });
      return link.expires_at;
    });
    this.logger.log(`sign-in link issued by key ${key.id} for agent ${agent.id}`);
    return { url: linkUrl(this.config.publicUrl, token, callback), expiresAt: expiresAt.toISOString() };
  }

  /**
   * The spec's security/GetApiViciToken: the key holder trades its key for a token valid
   * VICIDIAL_API_TOKEN_TTL_SECONDS, accepted wherever the key is (ExternLoginVicidial), so the
   * long-lived key need not travel with every request. A token cannot mint another one (401):
   * only the key renews. Rate-limited like link issuing, per address and per key.
   */
  async apiToken(rawKey: string | null, ip: string | null): Promise<ApiViciTokenResult> {
    await this.rateLimiter.consume('vicidial-token-ip', ip ?? 'unknown', this.vicidial.issuePerIp);
    const key = await this.findKey(rawKey?.startsWith(VICIDIAL_API_TOKEN_PREFIX) ? null : rawKey);
    await this.rateLimiter.consume('vicidial-token-key', key.id, this.vicidial.issuePerKey);
    const expiresAt = Date.now() + VICIDIAL_API_TOKEN_TTL_SECONDS * 1000;
    await this.dataSource.query(`UPDATE integration_keys SET last_used_at = now() WHERE id = $1`, [key.id]);
    return { token: signApiToken(this.config.jwt.secret, key.id, expiresAt), expiresAt: new Date(expiresAt).toISOString() };
  }

  /**
   * Spends a link and starts the agent's session. Unknown, used, expired, revoked-key and no
   * longer signable agents all answer the same 404, so a link tells nothing about why.
   */
  async exchange(token: string, meta: ClientMeta): Promise<AuthResult & { callback: string | null }> {
    await this.rateLimiter.consume('vicidial-open-ip', meta.ip ?? 'unknown', this.vicidial.exchangePerIp);
    if (!LINK_TOKEN_PATTERN.test(token)) throw this.linkInvalid();
    const hash = sha256Hex(token);
    const claimed = returnedRows<{ id: string; tenant_id: string; user_id: string; callback: string | null; key_name: string }>(
      await this.dataSource.query(
        `UPDATE vicidial_login_links l SET used_at = now(), used_ip = $2
           FROM integration_keys k
          WHERE l.token_hash = $1 AND l.used_at IS NULL AND l.expires_at > now()
            AND k.id = l.key_id AND k.revoked_at IS NULL
          RETURNING l.id, l.tenant_id, l.user_id, l.callback, k.name AS key_name`,
        [hash, meta.ip],
      ),
    );
    if (!claimed.length) {
      await this.auditRefusal(hash, meta.ip);
      throw this.linkInvalid();
    }
    const link = claimed[0];
    // The agent may have been disabled or promoted since the link was issued.
    const [agent] = await this.dataSource.query<AgentRow[]>(
      `SELECT u.id, u.email, u.active, r.code AS role_code FROM users u JOIN roles r ON r.id = u.role_id
        WHERE u.id = $1 AND u.client_id = $2`,
      [link.user_id, link.tenant_id],
    );
    if (!agent?.active || agent.role_code !== SIGNABLE_ROLE) {
      await this.auditLink(this.dataSource.manager, link.tenant_id, link.key_name, link.id, 'update', {
        event: 'refused',
        reason: 'agent-not-signable',
        ip: meta.ip,
      });
      throw this.linkInvalid();
    }
    const result = await this.auth.signInAs(agent.id, meta);
    await this.auditLink(this.dataSource.manager, link.tenant_id, link.key_name, link.id, 'update', {
      event: 'used',
      agentId: agent.id,
      agentEmail: agent.email,
      ip: meta.ip,
    });
    return { ...result, callback: link.callback };
  }

  private async findKey(rawKey: string | null): Promise<KeyRow> {
    const refused = () =>
      new AppException('unauthorized', {
        message: 'Missing, unknown or revoked integration key (send it as X-Api-Key or Authorization: Bearer).',
      });
    // A token from GetApiViciToken stands for its key while it lasts (and while the key is not revoked).
    const tokenKeyId = rawKey ? verifyApiToken(this.config.jwt.secret, rawKey, Date.now()) : null;
    if (!rawKey || (!tokenKeyId && !looksLikeKey(rawKey))) throw refused();
    const [key] = await this.dataSource.query<KeyRow[]>(
      `SELECT k.id, k.tenant_id, k.name, k.callback_origins FROM integration_keys k JOIN clients c ON c.id = k.tenant_id
        WHERE ${tokenKeyId ? 'k.id = $1::uuid' : 'k.key_hash = $1'} AND k.revoked_at IS NULL`,
      [tokenKeyId ?? sha256Hex(rawKey)],
    );
    if (!key) throw refused();
    return key;
  }

  /** The agent by user id or email, inside the key's tenant only: anyone else answers 404. */
  private async findAgent(tenantId: string, ref: string): Promise<AgentRow> {
    const value = ref.trim();
    const byId = UUID.test(value);
    const [agent] = await this.dataSource.query<AgentRow[]>(
      `SELECT u.id, u.email, u.active, r.code AS role_code FROM users u JOIN roles r ON r.id = u.role_id
        WHERE u.client_id = $1 AND ${byId ? 'u.id = $2::uuid' : 'lower(u.email) = lower($2)'}`,
      [tenantId, value],
    );
    if (!agent) throw new AppException('not_found', { message: `No agent "${value}" in this key's organisation.` });
    if (agent.role_code !== SIGNABLE_ROLE)
      throw AppException.forbidden('An integration key signs in agents only (role AGENT), never supervisors or administrators.');
    if (!agent.active) throw AppException.forbidden('This agent is disabled.');
    return agent;
  }

  /** A refused open of a link we know (used, expired, revoked key) is written down; unknown ids are not. */
  private async auditRefusal(hash: string, ip: string | null): Promise<void> {
    const [row] = await this.dataSource.query<(LinkRow & { key_name: string })[]>(
      `SELECT l.id, l.tenant_id, l.used_at, l.expires_at, k.revoked_at IS NOT NULL AS key_revoked, k.name AS key_name
         FROM vicidial_login_links l JOIN integration_keys k ON k.id = l.key_id WHERE l.token_hash = $1`,
      [hash],
    );
    if (!row) return;
    const reason = row.used_at ? 'already-used' : row.key_revoked ? 'key-revoked' : 'expired';
    await this.auditLink(this.dataSource.manager, row.tenant_id, row.key_name, row.id, 'update', { event: 'refused', reason, ip });
  }

  private async auditLink(
    manager: DataSource['manager'],
    tenantId: string,
    keyName: string,
    linkId: string,
    action: 'create' | 'update',
    after: Record<string, unknown>,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO audit_log (client_id, actor_user_id, actor_name, entity_type, entity_id, action, before, after)
       VALUES ($1, NULL, $2, 'vicidial-link', $3, $4, NULL, $5::jsonb)`,
      [tenantId, `Integration key: ${keyName}`.slice(0, 160), linkId, action, JSON.stringify(after)],
    );
  }

  private linkInvalid(): AppException {
    return new AppException('not_found', { message: LINK_INVALID_MESSAGE });
  }
}
