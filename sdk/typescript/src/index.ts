export { Client, type ClientOptions, type RequestOptions, type SendOptions, type BulkOptions, type EventStream } from './client.js';
export * from './errors.js';
export * from './webhooks.js';
export { type LiveEvent } from './events.js';
export * from './types.js';
export * from './resources.js';
export { encrypt, decrypt, isEncrypted, parseEncrypted, DecryptionError, E2E_SCHEME, DEFAULT_ITERATIONS, MIN_ITERATIONS, MAX_ITERATIONS, type EncryptOptions } from './end-to-end.js';
export type { paths, operations, components } from './schema.js';
