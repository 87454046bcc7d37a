export { EMAIL_ATTACHMENT_MAX_BYTES, EMAIL_CAPABILITIES, createEmailAdapter, type EmailAdapter } from './email.adapter';
export * from './parse';
export * from './settings';
export * from './transport';
export * from './thread';
