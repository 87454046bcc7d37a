import { createHash } from 'node:crypto';
import { emailNetworkFromEnv, type EmailNetwork } from '@centralita/channels';
import { ConfigCrypto } from '@centralita/contracts/server';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { WORKER_CONFIG, type WorkerConfig } from '../config/worker-config';
import { loadEmailReaderConfig, type EmailReaderConfig } from './email-reader-config';
import { MailboxReader, type MailboxAccount } from './mailbox-reader';
import { MailboxStore } from './mailbox-store';

export const EMAIL_DB = Symbol('EMAIL_DB');

interface AccountRow {
  id: string;
  tenant_id: string;
  external_account_id: string;
  settings: Record<string, string>;
  secrets: Record<string, string>;
  verify_token: string;
  created_at: Date;
}

/**
 * One mailbox reader per enabled email account (channel_accounts of kind 'email'), re-read every
 * EMAIL_ACCOUNTS_REFRESH_MS: a new account starts a reader, a disabled or deleted one stops it, a
 * changed one reconnects. Every worker process runs this; the readers' Redis leases let one
 * process read each mailbox at a time (EMAIL_READER_ENABLED=off leaves them to the others).
 */
@Injectable()
export class EmailReaderService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(EmailReaderService.name);
  private readonly config: EmailReaderConfig = loadEmailReaderConfig();
  private readonly readers = new Map<string, MailboxReader>();
  private redis: Redis | null = null;
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private readonly network: EmailNetwork = emailNetworkFromEnv();
  private readonly store: MailboxStore;

  constructor(
    @Inject(EMAIL_DB) private readonly db: DataSource,
    @Inject(WORKER_CONFIG) private readonly worker: WorkerConfig,
    private readonly crypto: ConfigCrypto,
  ) {
    this.store = new MailboxStore(db);
  }

  onApplicationBootstrap(): void {
    if (!this.config.enabled) return;
    this.redis = new Redis(this.worker.redisUrl, { maxRetriesPerRequest: 3, disconnectTimeout: 500 });
    this.redis.on('error', () => undefined);
    const tick = () => {
      this.refreshing = this.refresh()
        .catch((error: Error) => this.logger.warn(`email accounts not read: ${error.message}`))
        .finally(() => {
          this.refreshing = null;
          if (this.redis) this.timer = setTimeout(tick, this.config.accountsRefreshMs);
        });
    };
    tick();
  }

  /** The readers running in this process, by account id (tests and health). */
  runningAccounts(): string[] {
    return [...this.readers.keys()];
  }

  private async refresh(): Promise<void> {
    if (!this.db.isInitialized) await this.db.initialize();
    const rows = (await this.db.query(
      `SELECT id, tenant_id, external_account_id, settings, secrets, verify_token, created_at FROM channel_accounts
       WHERE kind = 'email' AND enabled AND deleted_at IS NULL`,
    )) as AccountRow[];
    const wanted = new Map<string, MailboxAccount>();
    for (const row of rows) {
      const account = this.accountOf(row);
      if (account) wanted.set(row.id, account);
    }
    for (const [id, reader] of this.readers) {
      const next = wanted.get(id);
      if (!next || next.fingerprint !== reader.mailbox.fingerprint) {
        this.readers.delete(id);
        await reader.stop();
      }
    }
    for (const [id, mailbox] of wanted) {
      if (this.readers.has(id) || !this.redis) continue;
      this.readers.set(
        id,
        new MailboxReader(mailbox, {
          store: this.store,
          redis: this.redis,
          network: this.network,
          config: this.config,
          keyPrefix: this.worker.queuePrefix,
          log: this.logger,
        }),
      );
    }
  }

  private accountOf(row: AccountRow): MailboxAccount | null {
    try {
      const secrets = Object.fromEntries(Object.entries(row.secrets ?? {}).map(([name, value]) => [name, this.crypto.decrypt(value)]));
      return {
        id: row.id,
        tenantId: row.tenant_id,
        createdAt: new Date(row.created_at),
        account: {
          id: row.id,
          kind: 'email',
          externalAccountId: row.external_account_id,
          settings: { ...row.settings },
          secrets,
          verifyToken: row.verify_token,
        },
        fingerprint: createHash('sha256')
          .update(JSON.stringify([row.external_account_id, row.settings, row.secrets]))
          .digest('hex'),
      };
    } catch {
      this.logger.warn(`email account ${row.id}: its secrets cannot be read (CONFIG_ENCRYPTION_KEY)`);
      return null;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const redis = this.redis;
    this.redis = null;
    if (this.timer) clearTimeout(this.timer);
    await this.refreshing;
    await Promise.all([...this.readers.values()].map((reader) => reader.stop()));
    this.readers.clear();
    if (redis?.status === 'ready') await redis.quit().catch(() => redis.disconnect());
    else redis?.disconnect();
    if (this.db.isInitialized) await this.db.destroy();
  }
}
