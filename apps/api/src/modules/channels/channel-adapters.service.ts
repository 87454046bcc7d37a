import {
  channelEndpointsFromEnv,
  createChannelRegistry,
  type ChannelAccount,
  type ChannelAdapter,
  type ChannelRegistry,
  type MessagingChannelKind,
} from '@centralita/channels';
import { MESSAGING_KINDS, type ChannelKindView, type MessagingKind } from '@centralita/contracts';
import { ConfigCrypto } from '@centralita/contracts/server';
import { Inject, Injectable, type Provider } from '@nestjs/common';
import type { ChannelAccountRow } from './channel-account.row';

/**
 * The adapters of this process, by channel kind (libs/channels registry, provider URLs from the
 * environment). A DI token so tests can put a test adapter in place of a real one.
 */
export const CHANNEL_REGISTRY = Symbol('CHANNEL_REGISTRY');
export const channelRegistryProvider: Provider = {
  provide: CHANNEL_REGISTRY,
  useFactory: (): ChannelRegistry => new Map(createChannelRegistry(channelEndpointsFromEnv())),
};

/**
 * Kinds offered only when a deployment switches them on: X's Account Activity API is paid-only and
 * being replaced, so it stays off unless CHANNEL_X_ENABLED=on.
 */
const KIND_SWITCHES: Partial<Record<MessagingKind, string>> = { twitter: 'CHANNEL_X_ENABLED' };

/** Accounts whose decrypted view this process keeps (a bound on memory, not a cache to tune). */
const ACCOUNT_VIEWS_KEPT = 10_000;

/** The registry as the platform reads it: which kinds are usable, their form, and accounts as adapters see them. */
@Injectable()
export class ChannelAdaptersService {
  constructor(
    @Inject(CHANNEL_REGISTRY) private readonly registry: ChannelRegistry,
    private readonly crypto: ConfigCrypto,
  ) {}

  /** The adapter view of each account at one row version (PostgreSQL's xmin), least recently made first. */
  private readonly views = new Map<string, { version: string; account: ChannelAccount }>();

  /** The adapter of a kind the deployment offers, or null (unknown kind, no adapter, switched off). */
  usable(kind: string): ChannelAdapter | null {
    if (!(MESSAGING_KINDS as readonly string[]).includes(kind)) return null;
    const adapter = this.registry.get(kind as MessagingChannelKind);
    return adapter && this.switchedOn(kind as MessagingKind) ? adapter : null;
  }

  private switchedOn(kind: MessagingKind, env: NodeJS.ProcessEnv = process.env): boolean {
    const name = KIND_SWITCHES[kind];
    return !name || env[name]?.trim().toLowerCase() === 'on';
  }

  /** Every kind with an adapter, as the console's account form needs it (GET /api/channel-kinds). */
  kinds(): ChannelKindView[] {
    return MESSAGING_KINDS.flatMap((kind) => {
      const adapter = this.registry.get(kind);
      if (!adapter) return [];
      const { capabilities, credentials } = adapter;
      return [
        {
          kind,
          secrets: [...credentials.secrets],
          settings: [...credentials.settings],
          textLimit: capabilities.textLimit,
          replyWindowHours: capabilities.replyWindowHours,
          humanAgentTagHours: capabilities.humanAgentTagHours,
          templates: capabilities.templates,
          attachments: Object.fromEntries(
            Object.entries(capabilities.attachments).map(([name, limit]) => [
              name,
              { maxBytes: limit.maxBytes, mimeTypes: [...limit.mimeTypes] },
            ]),
          ),
          enabled: this.switchedOn(kind),
          registersWebhook: typeof adapter.registerWebhook === 'function',
          inbound: adapter.inbound ?? 'webhook',
        },
      ];
    });
  }

  /** A stored account as its adapter takes it: secrets decrypted here, in memory only. */
  toAdapterAccount(row: ChannelAccountRow): ChannelAccount {
    return {
      id: row.id,
      kind: row.kind,
      externalAccountId: row.external_account_id,
      settings: { ...row.settings },
      secrets: Object.fromEntries(Object.entries(row.secrets ?? {}).map(([name, value]) => [name, this.crypto.decrypt(value)])),
      verifyToken: row.verify_token,
    };
  }

  /**
   * toAdapterAccount of the row as it was at `version` (its xmin, which every UPDATE of the row
   * moves), made once per version: every webhook and every stored event of an account decrypted
   * its secrets again (C1). Frozen, as adapters share it.
   */
  adapterAccountAt(row: ChannelAccountRow, version: string): ChannelAccount {
    const kept = this.views.get(row.id);
    if (kept?.version === version) return kept.account;
    const account = this.toAdapterAccount(row);
    Object.freeze(account.settings);
    Object.freeze(account.secrets);
    Object.freeze(account);
    this.views.delete(row.id);
    this.views.set(row.id, { version, account });
    if (this.views.size > ACCOUNT_VIEWS_KEPT) this.views.delete(this.views.keys().next().value!);
    return account;
  }
}
