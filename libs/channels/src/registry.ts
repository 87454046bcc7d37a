import type { ChannelAdapter, ChannelEndpoints, MessagingChannelKind } from './adapter';
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
