// Typed helpers for the account's settings-like resources: webhooks, API keys, devices, and the
// credentials of the SMPP and Twilio-compatible interfaces. Each method is one operation of the
// Extended API; its argument and answer types come from the generated schema (schema.ts), so they
// follow the API when it changes.
import type { operations } from './schema.js';

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
/** The JSON body an operation takes. */
export type RequestBodyOf<K extends keyof operations> = operations[K] extends { requestBody: infer B } ? Json<B> : never;
/** The JSON an operation answers with its success status. */
export type AnswerOf<K extends keyof operations, Status extends number> = operations[K]['responses'] extends Record<Status, infer R> ? Json<R> : never;
/** The query parameters of an operation. */
export type QueryOf<K extends keyof operations> = operations[K] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** What a helper needs of the client: its request(). */
export interface Requester {
  request<T>(method: string, path: string, options?: { json?: unknown; query?: object; signal?: AbortSignal }): Promise<T>;
}

export interface CallOptions {
  signal?: AbortSignal;
}

const at = (base: string, id: string) => `${base}/${encodeURIComponent(id)}`;

export type Webhook = AnswerOf<'getWebhook', 200>;
export type WebhookPage = AnswerOf<'listWebhooks', 200>;
export type CreateWebhookRequest = RequestBodyOf<'createWebhook'>;
/** The created webhook with its signing secret, shown this once. */
export type CreatedWebhook = AnswerOf<'createWebhook', 201>;
export type UpdateWebhookRequest = RequestBodyOf<'updateWebhook'>;
export type RotatedWebhookSecret = AnswerOf<'rotateWebhookSecret', 200>;

/** client.webhooks: where the gateway posts events (permissions webhooks:read / webhooks:write). */
export class Webhooks {
  constructor(private readonly client: Requester) {}
  /** GET /webhooks: one page, newest first. */
  list(query: Partial<QueryOf<'listWebhooks'>> = {}, options: CallOptions = {}): Promise<WebhookPage> {
    return this.client.request('GET', '/webhooks', { query, ...options });
  }
  /** GET /webhooks/{id}. */
  get(id: string, options: CallOptions = {}): Promise<Webhook> {
    return this.client.request('GET', at('/webhooks', id), options);
  }
  /** POST /webhooks: the answer carries the signing secret, once. */
  create(request: CreateWebhookRequest, options: CallOptions = {}): Promise<CreatedWebhook> {
    return this.client.request('POST', '/webhooks', { json: request, ...options });
  }
  /** PATCH /webhooks/{id}: fields not sent stay as they are. */
  update(id: string, request: UpdateWebhookRequest, options: CallOptions = {}): Promise<Webhook> {
    return this.client.request('PATCH', at('/webhooks', id), { json: request, ...options });
  }
  /** DELETE /webhooks/{id}: the webhook and its delivery log. */
  async delete(id: string, options: CallOptions = {}): Promise<void> {
    await this.client.request('DELETE', at('/webhooks', id), options);
  }
  /** POST /webhooks/{id}/rotate-secret: a new signing secret, shown once. */
  rotateSecret(id: string, options: CallOptions = {}): Promise<RotatedWebhookSecret> {
    return this.client.request('POST', `${at('/webhooks', id)}/rotate-secret`, options);
  }
}

export type ApiKey = AnswerOf<'getApiKey', 200>;
export type ApiKeyPage = AnswerOf<'listApiKeys', 200>;
export type CreateApiKeyRequest = RequestBodyOf<'createApiKey'>;
/** The created key with its secret (`key`), shown this once. */
export type CreatedApiKey = AnswerOf<'createApiKey', 201>;

/** client.keys: the account's API keys (permission keys:manage). */
export class ApiKeys {
  constructor(private readonly client: Requester) {}
  /** GET /keys: one page, newest first; revoked: false lists only keys that work. */
  list(query: Partial<QueryOf<'listApiKeys'>> = {}, options: CallOptions = {}): Promise<ApiKeyPage> {
    return this.client.request('GET', '/keys', { query, ...options });
  }
  /** GET /keys/{id}, without its secret. */
  get(id: string, options: CallOptions = {}): Promise<ApiKey> {
    return this.client.request('GET', at('/keys', id), options);
  }
  /** POST /keys: only permissions the calling key holds itself (more is a ForbiddenError). */
  create(request: CreateApiKeyRequest, options: CallOptions = {}): Promise<CreatedApiKey> {
    return this.client.request('POST', '/keys', { json: request, ...options });
  }
  /** DELETE /keys/{id}: refused from now on; revoking again answers it unchanged. */
  revoke(id: string, options: CallOptions = {}): Promise<ApiKey> {
    return this.client.request('DELETE', at('/keys', id), options);
  }
}

export type DeviceDetail = AnswerOf<'getDevice', 200>;
export type RegisterDeviceRequest = RequestBodyOf<'registerDevice'>;
/** The registered device with its token and pairing URL, shown this once. */
export type RegisteredDevice = AnswerOf<'registerDevice', 201>;
export type UpdateDeviceSettingsRequest = RequestBodyOf<'updateDeviceSettings'>;

/** client.devices: the account's phones (devices:read / devices:write / devices:settings). */
export class Devices {
  constructor(private readonly client: Requester) {}
  /** GET /devices: one page. */
  list(query: Partial<QueryOf<'listDevices'>> = {}, options: CallOptions = {}): Promise<AnswerOf<'listDevices', 200>> {
    return this.client.request('GET', '/devices', { query, ...options });
  }
  /** GET /devices/{id}. */
  get(id: string, options: CallOptions = {}): Promise<DeviceDetail> {
    return this.client.request('GET', at('/devices', id), options);
  }
  /** POST /devices: a new device and the credentials its phone connects with (token shown once). */
  register(request: RegisterDeviceRequest, options: CallOptions = {}): Promise<RegisteredDevice> {
    return this.client.request('POST', '/devices', { json: request, ...options });
  }
  /** PATCH /devices/{id}/settings: fields not sent stay as they are. */
  update(id: string, settings: UpdateDeviceSettingsRequest, options: CallOptions = {}): Promise<AnswerOf<'updateDeviceSettings', 200>> {
    return this.client.request('PATCH', `${at('/devices', id)}/settings`, { json: settings, ...options });
  }
  /** POST /devices/{id}/token: a new token; the old one stops working at once. */
  replaceToken(id: string, options: CallOptions = {}): Promise<AnswerOf<'replaceDeviceToken', 200>> {
    return this.client.request('POST', `${at('/devices', id)}/token`, options);
  }
  /** DELETE /devices/{id}: revokes its credentials; deleting it again changes nothing. */
  async delete(id: string, options: CallOptions = {}): Promise<void> {
    await this.client.request('DELETE', at('/devices', id), options);
  }
}

export type SmppCredential = AnswerOf<'revokeSmppCredential', 200>;
export type CreateSmppCredentialRequest = RequestBodyOf<'createSmppCredential'>;
/** The created credential with its password, shown this once. */
export type CreatedSmppCredential = AnswerOf<'createSmppCredential', 201>;

/** client.smppCredentials: what ESMEs bind with (docs/smpp.md; permission keys:manage). */
export class SmppCredentials {
  constructor(private readonly client: Requester) {}
  /** GET /smpp/credentials: every credential, revoked ones included, never a password. */
  list(options: CallOptions = {}): Promise<AnswerOf<'listSmppCredentials', 200>> {
    return this.client.request('GET', '/smpp/credentials', options);
  }
  /** POST /smpp/credentials. */
  create(request: CreateSmppCredentialRequest = {}, options: CallOptions = {}): Promise<CreatedSmppCredential> {
    return this.client.request('POST', '/smpp/credentials', { json: request, ...options });
  }
  /** PATCH /smpp/credentials/{id}: its name or default_data_coding; a bound session keeps what it bound with. */
  update(id: string, request: RequestBodyOf<'updateSmppCredential'>, options: CallOptions = {}): Promise<SmppCredential> {
    return this.client.request('PATCH', at('/smpp/credentials', id), { json: request, ...options });
  }
  /** DELETE /smpp/credentials/{id}: unbinds its sessions at once. */
  revoke(id: string, options: CallOptions = {}): Promise<SmppCredential> {
    return this.client.request('DELETE', at('/smpp/credentials', id), options);
  }
}

export type CreateTwilioCredentialRequest = RequestBodyOf<'createTwilioCredential'>;
/** The created credential with its auth token, shown this once. */
export type CreatedTwilioCredential = AnswerOf<'createTwilioCredential', 201>;

/** client.twilioCredentials: AccountSid and auth token for the Twilio-compatible API (keys:manage). */
export class TwilioCredentials {
  constructor(private readonly client: Requester) {}
  /** GET /twilio/credentials: never their tokens. */
  list(options: CallOptions = {}): Promise<AnswerOf<'listTwilioCredentials', 200>> {
    return this.client.request('GET', '/twilio/credentials', options);
  }
  /** POST /twilio/credentials. */
  create(request: CreateTwilioCredentialRequest = {}, options: CallOptions = {}): Promise<CreatedTwilioCredential> {
    return this.client.request('POST', '/twilio/credentials', { json: request, ...options });
  }
  /** POST /twilio/credentials/{sid}/rotate: a new auth token; the old one stops working at once. */
  rotate(sid: string, options: CallOptions = {}): Promise<AnswerOf<'rotateTwilioCredential', 200>> {
    return this.client.request('POST', `${at('/twilio/credentials', sid)}/rotate`, options);
  }
  /** DELETE /twilio/credentials/{sid}: the credential and its callbacks. */
  async delete(sid: string, options: CallOptions = {}): Promise<void> {
    await this.client.request('DELETE', at('/twilio/credentials', sid), options);
  }
}
