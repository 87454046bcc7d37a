import type { ChannelAdapter, ChannelEndpoints, MessagingChannelKind } from './adapter';

/**
 * The typed registry: one adapter factory per messaging channel kind. Adding a channel adds its
 * folder and one line here; nothing in the core names a provider.
 */
const FACTORIES: Record<MessagingChannelKind, ((endpoints: ChannelEndpoints) => ChannelAdapter) | null> = {
  // Filled by each adapter's folder: whatsapp, facebook, instagram, telegram, twitter.
  whatsapp: null,
  facebook: null,
  instagram: null,
  telegram: null,
  twitter: null,
};

export type ChannelRegistry = ReadonlyMap<MessagingChannelKind, ChannelAdapter>;

export function createChannelRegistry(endpoints: ChannelEndpoints): ChannelRegistry {
  const registry = new Map<MessagingChannelKind, ChannelAdapter>();
  for (const [kind, factory] of Object.entries(FACTORIES) as [MessagingChannelKind, (typeof FACTORIES)[MessagingChannelKind]][]) {
    if (factory) registry.set(kind, factory(endpoints));
  }
  return registry;
}
