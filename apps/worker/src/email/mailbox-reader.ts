import { randomBytes } from 'node:crypto';
import { emailMaxBytes, emailSettingsOf, connectImap, imapError, type EmailNetwork } from '@centralita/channels';
import type { ChannelAccount } from '@centralita/channels';
import type { ImapFlow } from 'imapflow';
import type Redis from 'ioredis';
import type { EmailReaderConfig } from './email-reader-config';
import type { MailboxStore } from './mailbox-store';

/** One email account as the reader needs it (secrets decrypted in memory). */
export interface MailboxAccount {
  id: string;
  tenantId: string;
  createdAt: Date;
  account: ChannelAccount;
  /** Changes when the account's settings or secrets change: the reader reconnects. */
  fingerprint: string;
}

export interface MailboxLog {
  warn(message: string): void;
  log(message: string): void;
}

/** At most this many mails are fetched whole per round trip. */
const FETCH_BATCH = 20;

/** Renews the lease only while it is still this process's (compare-and-expire). */
const RENEW_LUA = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE_LUA = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * Reads one mailbox folder for as long as it runs: only while it holds the account's lease (a
 * Redis key with a token, renewed while alive, so one process in the deployment reads a mailbox and
 * another takes over within EMAIL_LEASE_MS of a death). Connected, it stores every mail after its
 * position (UIDVALIDITY + last UID, never unread flags or "the last N"), then waits in IDLE for
 * new mail, with a poll every EMAIL_POLL_MS in case IDLE is missing or silent. A dropped
 * connection reconnects after EMAIL_RETRY_MS and fetches everything it missed, once.
 */
export class MailboxReader {
  private stopped = false;
  private client: ImapFlow | null = null;
  private readonly token = randomBytes(12).toString('hex');
  private wake: (() => void) | null = null;
  private readonly done: Promise<void>;

  constructor(
    readonly mailbox: MailboxAccount,
    private readonly deps: {
      store: MailboxStore;
      redis: Redis;
      network: EmailNetwork;
      config: EmailReaderConfig;
      keyPrefix: string;
      log: MailboxLog;
    },
  ) {
    this.done = this.run();
  }

  private get leaseKey(): string {
    return `${this.deps.keyPrefix}:email-reader:${this.mailbox.id}`;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    this.client?.close();
    await this.done;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const leased = await this.acquire().catch(() => false);
      if (!leased) {
        await this.sleep(Math.max(500, Math.floor(this.deps.config.leaseMs / 3)));
        continue;
      }
      const renewal = setInterval(() => void this.renew(), Math.max(300, Math.floor(this.deps.config.leaseMs / 3)));
      try {
        await this.readWhileLeased();
      } catch (error) {
        if (!this.stopped) {
          const reason = imapError(error).message;
          this.deps.log.warn(`mailbox of email account ${this.mailbox.id}: ${reason}`);
          await this.deps.store.failed(this.mailbox, this.folder(), reason);
        }
      } finally {
        clearInterval(renewal);
        this.client?.close();
        this.client = null;
      }
      if (!this.stopped) await this.sleep(this.deps.config.retryMs);
    }
    await this.deps.redis.eval(RELEASE_LUA, 1, this.leaseKey, this.token).catch(() => undefined);
  }

  private folder(): string {
    try {
      return emailSettingsOf(this.mailbox.account).imap.folder;
    } catch {
      return 'INBOX';
    }
  }

  private async acquire(): Promise<boolean> {
    const answer = await this.deps.redis.set(this.leaseKey, this.token, 'PX', this.deps.config.leaseMs, 'NX');
    if (answer === 'OK') return true;
    // Ours already (a reconnect within the lease).
    return (await this.deps.redis.get(this.leaseKey)) === this.token;
  }

  private async renew(): Promise<void> {
    const kept = await this.deps.redis.eval(RENEW_LUA, 1, this.leaseKey, this.token, String(this.deps.config.leaseMs)).catch(() => 0);
    if (kept !== 1) {
      // Another process reads this mailbox now (the lease ran out while Redis or this process stalled).
      this.deps.log.warn(`lost the lease on email account ${this.mailbox.id}'s mailbox`);
      this.client?.close();
    }
  }

  private async readWhileLeased(): Promise<void> {
    const settings = emailSettingsOf(this.mailbox.account);
    const client = await connectImap(settings.imap, this.deps.network);
    this.client = client;
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    let changed = false;
    client.on('exists', () => {
      changed = true;
      this.wake?.();
    });
    const mailbox = await client.mailboxOpen(settings.imap.folder, { readOnly: true });
    let uidValidity = String(mailbox.uidValidity);
    while (!this.stopped && client.usable) {
      changed = false;
      const current = client.mailbox;
      if (current && String(current.uidValidity) !== uidValidity) uidValidity = String(current.uidValidity);
      await this.sync(client, settings.imap.folder, uidValidity);
      if (changed) continue;
      // IDLE until the server reports new mail, the poll interval passes, or the connection drops.
      const idling = client.idle().catch(() => undefined);
      await Promise.race([this.sleep(this.deps.config.pollMs), closed]);
      void idling;
    }
    if (!this.stopped && !client.usable) throw new Error('the IMAP connection closed');
  }

  /** Stores every mail after the stored position, in UID order. */
  private async sync(client: ImapFlow, folder: string, uidValidity: string): Promise<void> {
    const position = await this.deps.store.position(this.mailbox, folder, { uidValidity });
    const found = await client.search({ uid: `${position.lastUid + 1}:*` }, { uid: true });
    // "n:*" always names the last message, even below n: only UIDs after the position are new.
    const uids = (found || []).filter((uid) => uid > position.lastUid).sort((a, b) => a - b);
    if (!uids.length) {
      await this.deps.store.synced(this.mailbox, folder);
      return;
    }
    const maxBytes = emailMaxBytes();
    const since = this.mailbox.createdAt.getTime() - 60_000;
    for (let start = 0; start < uids.length && !this.stopped; start += FETCH_BATCH) {
      const batch = uids.slice(start, start + FETCH_BATCH);
      const sized = await client.fetchAll(batch.join(','), { uid: true, size: true, internalDate: true }, { uid: true });
      const meta = new Map(sized.map((one) => [one.uid, one]));
      for (const uid of batch) {
        const info = meta.get(uid);
        if (!info) continue;
        const arrived = info.internalDate ? new Date(info.internalDate).getTime() : Date.now();
        let raw: Buffer | null = null;
        if (arrived >= since) {
          const whole = (info.size ?? 0) <= maxBytes;
          const [message] = await client.fetchAll(String(uid), whole ? { uid: true, source: true } : { uid: true, headers: true }, {
            uid: true,
          });
          raw = whole ? (message?.source ?? null) : tooLarge(message?.headers ?? Buffer.alloc(0), info.size ?? 0, maxBytes);
        }
        if (raw) await this.deps.store.store(this.mailbox, folder, uidValidity, uid, raw);
        else await this.deps.store.skip(this.mailbox, folder, uidValidity, uid);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }
}

/**
 * A mail larger than EMAIL_MAX_BYTES is kept as its headers and a note, so the customer still
 * reaches an agent (who asks for a smaller file) and the position moves on.
 */
function tooLarge(headers: Buffer, size: number, maxBytes: number): Buffer {
  const head = headers
    .toString('latin1')
    .replace(/^content-(type|transfer-encoding|disposition):.*(\r?\n[ \t].*)*\r?\n/gim, '')
    .replace(/\s+$/, '');
  const note = `[This email (${size} bytes) is larger than the platform takes (${maxBytes} bytes): only its headers were kept.]`;
  return Buffer.from(`${head}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${note}\r\n`, 'latin1');
}
