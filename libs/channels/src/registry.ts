import type { ChannelAdapter, ChannelCapabilities, ChannelEndpoints, MessagingChannelKind } from './adapter';
import { DEFAULT_CHANNEL_ENDPOINTS } from './endpoints';
import { createTwitterAdapter } from './twitter';
import { createTelegramAdapter } from './telegram';
import { createWhatsAppAdapter } from './whatsapp';
import { createInstagramAdapter, createMessengerAdapter } from './messenger';
import { createEmailAdapter } from './email';

/**
 * The typed registry: one adapter factory per messaging channel kind. Adding a channel adds its
 * folder and one line here; nothing in the core names a provider.
 */
const FACTORIES: Record<MessagingChannelKind, (endpoints: ChannelEndpoints) => ChannelAdapter> = {
  whatsapp: createWhatsAppAdapter,
  facebook: createMessengerAdapter,
  instagram: createInstagramAdapter,
  telegram: createTelegramAdapter,
  twitter: createTwitterAdapter,
  email: (endpoints) => createEmailAdapter(endpoints),
};

export type ChannelRegistry = ReadonlyMap<MessagingChannelKind, ChannelAdapter>;

export function createChannelRegistry(endpoints: ChannelEndpoints): ChannelRegistry {
  const registry = new Map<MessagingChannelKind, ChannelAdapter>();
  for (const [kind, factory] of Object.entries(FACTORIES) as [MessagingChannelKind, (typeof FACTORIES)[MessagingChannelKind]][]) {
    registry.set(kind, factory(endpoints));
  }
  return registry;
}

let capabilitiesRegistry: ChannelRegistry | undefined;

/**
 * What a channel kind can do, without an account or configured endpoints (capabilities are the
 * provider's, whatever its address): the core asks it before writing a message (the bot's buttons).
 * Null for a kind no adapter serves (web chat, phone).
 */
export function channelCapabilities(kind: string): ChannelCapabilities | null {
  capabilitiesRegistry ??= createChannelRegistry(DEFAULT_CHANNEL_ENDPOINTS);
  return capabilitiesRegistry.get(kind as MessagingChannelKind)?.capabilities ?? null;
}
