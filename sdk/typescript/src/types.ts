// Names for the shapes of the Extended API, taken from the types generated from the gateway's own
// route declarations (schema.ts), so that they change when the API does.
import type { operations } from './schema.js';

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type Query<K extends keyof operations> = operations[K] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The body of POST /sms. */
export type SendSmsRequest = Json<operations['createSms']['requestBody']>;
/** An SMS as the API shows it (the answer of POST /sms and of the list). */
export type Sms = Json<operations['createSms']['responses'][201]>;
/** An SMS with every status it went through (GET /sms/{id}). */
export type SmsDetail = Json<operations['getSms']['responses'][200]>;
/** A page of SMS. */
export type SmsPage = Json<operations['listSms']['responses'][200]>;
/** Filters of GET /sms (limit and cursor included). */
export type ListSmsQuery = Query<'listSms'>;
/** One message of a bulk send: the fields of POST /sms but no_store. */
export type BulkMessage = Json<operations['createSmsBulk']['requestBody']> extends { messages: (infer M)[] } ? M : never;
/** The answer of a bulk send: the created SMS, in the order given. */
export type BulkResult = Json<operations['createSmsBulk']['responses'][201]>;
/** The answer of a dry-run bulk send: each message's result. */
export type BulkDryRunResult = Json<operations['createSmsBulk']['responses'][200]>;
/** A page of devices. */
export type DevicePage = Json<operations['listDevices']['responses'][200]>;
export type Device = DevicePage extends { data: (infer D)[] } ? D : never;
export type ListDevicesQuery = Query<'listDevices'>;
/** A page of incoming SMS. */
export type IncomingPage = Json<operations['listIncomingSms']['responses'][200]>;
export type IncomingSms = IncomingPage extends { data: (infer I)[] } ? I : never;
export type ListIncomingQuery = Query<'listIncomingSms'>;
