export { createTwitterAdapter } from './twitter.adapter';
export { X_CAPABILITIES, X_CREDENTIALS, xChannelEnabled } from './capabilities';
export { xCrcResponseToken, xWebhookSignature } from './webhook';
export { oauth1AuthorizationHeader, percentEncode } from './oauth1';
