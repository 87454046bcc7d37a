export { createInstagramAdapter, createMessengerAdapter, createMetaMessagingAdapter } from './adapter';
export type { MessagingProfile, MetaMessagingAdapter, MetaMessagingKind } from './adapter';
export { INSTAGRAM_CAPABILITIES, MESSENGER_CAPABILITIES } from './capabilities';
export { WATERMARK_PREFIX } from './parse';
