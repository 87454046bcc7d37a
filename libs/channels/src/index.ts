export * from './adapter';
export * from './endpoints';
export * from './http';
export * from './registry';
export { metaJson, metaSignature, verifyMetaSignature, constantTimeEqual } from './meta/signature';
export * from './telegram';
export { createTwitterAdapter, xChannelEnabled, xCrcResponseToken, xWebhookSignature, oauth1AuthorizationHeader } from './twitter';
export * from './messenger';
export * from './email';
