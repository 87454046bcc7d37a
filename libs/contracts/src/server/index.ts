// `@centralita/contracts/server`: Node-only code shared by the API and the worker. The console
// imports only the package index (src/index.ts), which must never re-export this entry.
export * from './config-crypto';
export * from './file-store';
export * from './file-store-config';
export * from './s3-client';
export * from './s3-file-store';
export * from './sigv4';
export * from './log-level';
export * from './message-view';
export * from './outgoing-address';
export * from './outbox';
export * from './message-campaign-board';
export * from './reply-window';
export * from './list-unsubscribe';
export * from './ivr-prompt-cache';
