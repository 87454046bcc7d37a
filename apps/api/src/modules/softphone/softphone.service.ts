import {
  SECRET_MASK,
  type AgentView,
  type CallDispositionInput,
  type CallerLookup,
  type CallRecordView,
  type SoftphoneAccountInput,
  type SoftphoneAccountView,
  type SoftphoneConfig,
  type SoftphoneSettings,
} from '@centralita/contracts';
import { ConfigCrypto, OutgoingAddressPolicy } from '@centralita/contracts/server';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { assertRules } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { MachineHostService } from '../machine-host/machine-host.service';
import { agentView, type AgentRow } from '../machine-host/views';

interface ConfigRow {
  ws_url: string;
  domain: string;
  ice_servers: string[];
  updated_at: Date;
}

interface AccountRow {
  user_id: string;
  extension: string;
  auth_user: string;
  password_secret: string | null;
  updated_at: Date;
}

interface CallRow {
  id: string;
  call_id: string;
  direction: 'inbound' | 'outbound';
  remote_number: string;
  contact_name: string | null;
  disposition: CallDispositionInput['disposition'];
  notes: string | null;
  duration_seconds: number | null;
  created_at: Date;
}

/** Digits of a dialled or presented number (SIP user parts may carry +, spaces or dashes). */
export function phoneDigits(value: string): string {
  return value.replace(/\D/g, '');
}

/**
 * SIP settings for the console's softphone, the caller lookup (screen pop), call dispositions and
 * the presence link (a SIP call moves the agent to inCall, hang-up to afterCallWork).
 */
@Injectable()
export class SoftphoneService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly crypto: ConfigCrypto,
    private readonly audit: AuditService,
    private readonly host: MachineHostService,
    private readonly outgoing: OutgoingAddressPolicy,
  ) {}

  /** The caller's own registration settings: the only answer that carries the SIP password. */
  async settings(principal: Principal): Promise<SoftphoneSettings> {
    const [config, account, [user]] = await Promise.all([
      this.configRow(principal.clientId),
      this.accountRow(principal.clientId, principal.userId),
      this.dataSource.query(`SELECT name FROM users WHERE id = $1 AND client_id = $2`, [principal.userId, principal.clientId]) as Promise<
        { name: string }[]
      >,
    ]);
    return {
      configured: Boolean(config && account),
      wsUrl: config?.ws_url ?? '',
      domain: config?.domain ?? '',
      iceServers: config?.ice_servers ?? [],
      extension: account?.extension ?? '',
      authUser: account?.auth_user ?? '',
      password: account?.password_secret ? this.crypto.decrypt(account.password_secret) : '',
      displayName: user?.name ?? '',
    };
  }

  async config(tenantId: string): Promise<SoftphoneConfig> {
    const row = await this.configRow(tenantId);
    return {
      wsUrl: row?.ws_url ?? '',
      domain: row?.domain ?? '',
      iceServers: row?.ice_servers ?? [],
      updatedAt: row?.updated_at.toISOString() ?? null,
    };
  }

  async saveConfig(principal: Principal, input: Omit<SoftphoneConfig, 'updatedAt'>): Promise<SoftphoneConfig> {
    this.assertReachable(input);
    const before = await this.config(principal.clientId);
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO softphone_configs (client_id, ws_url, domain, ice_servers) VALUES ($1, $2, $3, $4)
         ON CONFLICT (client_id) DO UPDATE SET ws_url = $2, domain = $3, ice_servers = $4, updated_at = now()`,
        [principal.clientId, input.wsUrl, input.domain, input.iceServers],
      );
      await this.audit.record(
        principal,
        {
          entityType: 'softphone-config',
          entityId: principal.clientId,
          action: before.updatedAt ? 'update' : 'create',
          before,
          after: input,
        },
        manager,
      );
    });
    return this.config(principal.clientId);
  }

  /**
   * The agents' browsers connect to the WebSocket and ICE servers and the dialer's SIP server to
   * the domain: none may point at loopback, link-local or private networks (the agents' own or
   * the platform's) unless the operator allows the range (OUTGOING_ALLOWED_CIDRS).
   */
  private assertReachable(input: Omit<SoftphoneConfig, 'updatedAt'>): void {
    const issues = [
      this.outgoing.urlIssue('wsUrl', input.wsUrl, { schemes: ['ws', 'wss'] }),
      this.outgoing.hostIssue('domain', input.domain.replace(/:\d{1,5}$/, '')),
      ...input.iceServers.map((uri, index) => this.outgoing.iceServerIssue(`iceServers.${index}`, uri)),
    ].filter((issue) => issue !== null);
    assertRules(issues);
  }

  async account(principal: Principal, userId: string): Promise<SoftphoneAccountView> {
    await this.tenantUser(principal.clientId, userId);
    return this.accountView(userId, await this.accountRow(principal.clientId, userId));
  }

  /** The password arrives in clear over TLS, is stored encrypted, and is answered masked (except to its owner). */
  async saveAccount(principal: Principal, userId: string, input: SoftphoneAccountInput): Promise<SoftphoneAccountView> {
    await this.tenantUser(principal.clientId, userId);
    return this.dataSource.transaction(async (manager) => {
      const [current] = (await manager.query(`SELECT * FROM softphone_accounts WHERE user_id = $1 AND client_id = $2 FOR NO KEY UPDATE`, [
        userId,
        principal.clientId,
      ])) as AccountRow[];
      const [taken] = (await manager.query(
        `SELECT user_id FROM softphone_accounts WHERE client_id = $1 AND extension = $2 AND user_id <> $3`,
        [principal.clientId, input.extension, userId],
      )) as { user_id: string }[];
      if (taken)
        throw new AppException('conflict', {
          message: `Extension ${input.extension} belongs to another user`,
          messageKey: 'extensionTaken',
          params: { extension: input.extension },
          data: { fields: { extension: [`Extension ${input.extension} belongs to another user`] } },
        });
      const password =
        input.password === undefined || input.password === SECRET_MASK
          ? (current?.password_secret ?? null)
          : input.password === ''
            ? null
            : this.crypto.encrypt(input.password);
      const authUser = input.authUser || input.extension;
      await manager.query(
        `INSERT INTO softphone_accounts (user_id, client_id, extension, auth_user, password_secret) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (user_id) DO UPDATE SET extension = $3, auth_user = $4, password_secret = $5, updated_at = now()`,
        [userId, principal.clientId, input.extension, authUser, password],
      );
      const before = current ? this.accountView(userId, current) : null;
      const [row] = (await manager.query(`SELECT * FROM softphone_accounts WHERE user_id = $1`, [userId])) as AccountRow[];
      const after = this.accountView(userId, row);
      await this.audit.record(
        principal,
        {
          entityType: 'softphone-account',
          entityId: userId,
          action: current ? 'update' : 'create',
          before,
          after: { ...after, passwordChanged: input.password !== undefined && input.password !== SECRET_MASK },
        },
        manager,
      );
      return after;
    });
  }

  /** Screen pop: phone-list entries whose number matches (the last 8 digits at least), and colleagues' extensions. */
  async lookup(principal: Principal, number: string): Promise<CallerLookup> {
    const digits = phoneDigits(number);
    if (!digits) return { number, contacts: [] };
    const suffix = digits.length >= 8 ? digits.slice(-8) : null;
    const [entries, colleagues] = await Promise.all([
      suffix
        ? (this.dataSource.query(
            `SELECT e.name, e.phone, l.name AS list_name FROM phone_list_entries e
               JOIN phone_lists l ON l.id = e.list_id AND l.deleted_at IS NULL
              WHERE e.client_id = $1 AND right(regexp_replace(e.phone, '\\D', '', 'g'), 8) = $2
              ORDER BY l.created_at DESC, e.line LIMIT 10`,
            [principal.clientId, suffix],
          ) as Promise<{ name: string | null; phone: string; list_name: string }[]>)
        : Promise.resolve([]),
      this.dataSource.query(
        `SELECT u.name, a.extension FROM softphone_accounts a JOIN users u ON u.id = a.user_id
          WHERE a.client_id = $1 AND a.extension = $2`,
        [principal.clientId, number.trim()],
      ) as Promise<{ name: string; extension: string }[]>,
    ]);
    return {
      number,
      contacts: [
        ...colleagues.map((row) => ({ name: row.name, phone: row.extension, listName: null, source: 'extension' as const })),
        ...entries.map((row) => ({ name: row.name, phone: row.phone, listName: row.list_name, source: 'phoneList' as const })),
      ],
    };
  }

  /** Stores the agent's disposition; the same Call-ID saved again updates it (a retried submit is one record). */
  async saveDisposition(principal: Principal, input: CallDispositionInput): Promise<CallRecordView> {
    const [row] = (await this.dataSource.query(
      `INSERT INTO softphone_calls (client_id, user_id, call_id, direction, remote_number, contact_name, disposition, notes, duration_seconds)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (user_id, call_id) DO UPDATE SET disposition = $7, notes = $8, contact_name = $6, duration_seconds = $9
       RETURNING *`,
      [
        principal.clientId,
        principal.userId,
        input.callId,
        input.direction,
        input.remoteNumber,
        input.contactName || null,
        input.disposition,
        input.notes?.trim() || null,
        input.durationSeconds ?? null,
      ],
    )) as CallRow[];
    return callView(row);
  }

  async recentCalls(principal: Principal): Promise<CallRecordView[]> {
    const rows = (await this.dataSource.query(
      `SELECT * FROM softphone_calls WHERE client_id = $1 AND user_id = $2 ORDER BY created_at DESC LIMIT 20`,
      [principal.clientId, principal.userId],
    )) as CallRow[];
    return rows.map(callView);
  }

  /**
   * A SIP call was answered: presence goes to inCall (404 when the agent has not logged in a
   * campaign). An inbound call the platform put through to this agent is booked by its own event
   * (call.connected, with the call's line on the log row): then the agent's presence is answered as it is.
   */
  async callStarted(principal: Principal): Promise<AgentView> {
    await this.requirePresence(principal);
    const [inbound] = (await this.dataSource.query(
      `SELECT p.*, u.name FROM agent_presence p JOIN users u ON u.id = p.user_id
        WHERE p.user_id = $1 AND EXISTS (
          SELECT 1 FROM conversations c JOIN voice_calls v ON v.conversation_id = c.id
           WHERE c.agent_id = p.user_id AND c.status = 'Active' AND v.ended_at IS NULL AND v.client_id = $2)`,
      [principal.userId, principal.clientId],
    )) as AgentRow[];
    if (inbound) return agentView(inbound);
    return agentView(
      await this.host.dispatch('agent', principal.userId, { type: 'agent.callStarted' }, this.actor(principal), principal.clientId),
    );
  }

  /** The call ended: presence goes to afterCallWork, with the disposition when the agent already chose one. */
  async callEnded(principal: Principal, disposition?: string): Promise<AgentView> {
    await this.requirePresence(principal);
    return agentView(
      await this.host.dispatch(
        'agent',
        principal.userId,
        { type: 'agent.callEnded', ...(disposition ? { disposition } : {}) },
        this.actor(principal),
        principal.clientId,
      ),
    );
  }

  private actor(principal: Principal) {
    return { kind: 'agent' as const, id: principal.userId };
  }

  private async requirePresence(principal: Principal): Promise<void> {
    const [row] = (await this.dataSource.query(`SELECT 1 FROM agent_presence WHERE user_id = $1 AND tenant_id = $2`, [
      principal.userId,
      principal.clientId,
    ])) as unknown[];
    if (!row) throw new AppException('not_found', { message: 'You have not logged in a campaign' });
  }

  private async tenantUser(tenantId: string, userId: string): Promise<void> {
    const [row] = (await this.dataSource.query(`SELECT id FROM users WHERE id = $1 AND client_id = $2`, [userId, tenantId])) as unknown[];
    if (!row) throw AppException.notFound();
  }

  private async configRow(tenantId: string): Promise<ConfigRow | undefined> {
    const [row] = (await this.dataSource.query(`SELECT * FROM softphone_configs WHERE client_id = $1`, [tenantId])) as ConfigRow[];
    return row;
  }

  private async accountRow(tenantId: string, userId: string): Promise<AccountRow | undefined> {
    const [row] = (await this.dataSource.query(`SELECT * FROM softphone_accounts WHERE user_id = $1 AND client_id = $2`, [
      userId,
      tenantId,
    ])) as AccountRow[];
    return row;
  }

  private accountView(userId: string, row: AccountRow | undefined): SoftphoneAccountView {
    return {
      userId,
      extension: row?.extension ?? '',
      authUser: row?.auth_user ?? '',
      password: row?.password_secret ? SECRET_MASK : '',
      updatedAt: row?.updated_at.toISOString() ?? null,
    };
  }
}

function callView(row: CallRow): CallRecordView {
  return {
    id: row.id,
    callId: row.call_id,
    direction: row.direction,
    remoteNumber: row.remote_number,
    contactName: row.contact_name,
    disposition: row.disposition,
    notes: row.notes,
    durationSeconds: row.duration_seconds,
    createdAt: row.created_at.toISOString(),
  };
}
