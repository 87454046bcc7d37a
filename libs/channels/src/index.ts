export * from './adapter';
export * from './endpoints';
export * from './http';
export * from './registry';
export { metaJson, metaSignature, verifyMetaSignature, constantTimeEqual } from './meta/signature';
