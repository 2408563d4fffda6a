// The OpenAPI 3.1 document of the Twilio-compatible subset, served beside the gateway's own
// document. Twilio's helper libraries need none (they carry Twilio's description); it is for
// clients generated from a document and for checking answers, so it describes what this gateway
// takes and answers, which is less than Twilio's Messages API. Written by hand because these
// routes are not declared routes (form bodies, Twilio's errors, HTTP Basic with an AccountSid);
// test/http/openapi-answers.test.ts holds it to what they answer.
import { MESSAGE_MAX_CHARACTERS } from '../../modules/messages/schema.ts';
import { API_VERSION } from '../../modules/twilio/callback-params.ts';

/** Where the document is served, beside /api/ext/v1/openapi.json. */
export const TWILIO_DOCUMENT_PATH = '/api/ext/v1/openapi-twilio.json';

const STATUSES = ['queued', 'scheduled', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'canceled'];

const nullable = (schema: Record<string, unknown>, description: string) => ({ anyOf: [schema, { type: 'null' }], description });

const Message = {
  type: 'object',
  required: ['sid', 'account_sid', 'api_version', 'to', 'from', 'body', 'status', 'direction', 'num_segments', 'num_media', 'date_created', 'date_updated', 'date_sent', 'uri'],
  properties: {
    sid: { type: 'string', pattern: '^SM[0-9a-f]{32}$', description: 'SM and the SMS\'s UUID without dashes' },
    account_sid: { type: 'string', pattern: '^AC[0-9a-f]{32}$' },
    api_version: { type: 'string', enum: [API_VERSION] },
    messaging_service_sid: { type: 'null', description: 'always null: the gateway has no messaging services' },
    to: { type: 'string' },
    from: nullable({ type: 'string', format: 'uuid' }, 'the device id of the phone that sends it; null while no phone is chosen'),
    body: { type: 'string' },
    status: { type: 'string', enum: STATUSES },
    direction: { type: 'string', enum: ['outbound-api'] },
    num_segments: { type: 'string', pattern: '^\\d+$' },
    num_media: { type: 'string', enum: ['0'] },
    price: { type: 'null', description: 'always null: the gateway does not price SMS' },
    price_unit: { type: 'null' },
    error_code: nullable({ type: 'integer', enum: [30001, 30003, 30008] }, '30001 expired before a phone took it, 30003 not delivered, 30008 other failures; null otherwise'),
    error_message: nullable({ type: 'string' }, 'null when error_code is null'),
    date_created: { type: 'string', description: 'RFC 2822, UTC' },
    date_updated: { type: 'string', description: 'RFC 2822, UTC' },
    date_sent: nullable({ type: 'string' }, 'RFC 2822, UTC; null until a phone reports it sent'),
    uri: { type: 'string' },
    subresource_uris: { type: 'object', properties: { media: { type: 'string' } } },
  },
};

const MessagePage = {
  type: 'object',
  required: ['messages', 'first_page_uri', 'next_page_uri', 'previous_page_uri', 'uri', 'page', 'page_size', 'start', 'end'],
  properties: {
    messages: { type: 'array', items: { $ref: '#/components/schemas/Message' } },
    first_page_uri: { type: 'string' },
    next_page_uri: nullable({ type: 'string' }, 'null on the last page'),
    previous_page_uri: { type: 'null', description: 'always null: pages go forward by PageToken' },
    uri: { type: 'string' },
    page: { type: 'integer', minimum: 0 },
    page_size: { type: 'integer', minimum: 1 },
    start: { type: 'integer', minimum: 0 },
    end: { type: 'integer', minimum: 0 },
  },
};

const TwilioErrorBody = {
  type: 'object',
  required: ['code', 'message', 'more_info', 'status'],
  properties: {
    code: { type: 'integer', description: 'Twilio\'s error code (20003 authenticate, 20404 not found, 21604 To missing, ...)' },
    message: { type: 'string' },
    more_info: { type: 'string' },
    status: { type: 'integer' },
  },
};

const error = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

/** Errors every operation can answer with. */
const COMMON_ERRORS = {
  401: error('wrong or missing credentials (20003), or the AccountSid of the path is not the one authenticated'),
  404: error('no such message of this account (20404)'),
  429: error('too many failed authentications from this address (20429), with Retry-After'),
};

const accountSid = { name: 'AccountSid', in: 'path', required: true, schema: { type: 'string', pattern: '^AC[0-9a-f]{32}$' } };
const messageSid = { name: 'Sid', in: 'path', required: true, schema: { type: 'string', pattern: '^SM[0-9a-fA-F]{32}$' } };
const message = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Message' } } } });

export function twilioDocument(version: string, publicUrl: string | undefined): Record<string, unknown> {
  const list = `/${API_VERSION}/Accounts/{AccountSid}/Messages.json`;
  const one = `/${API_VERSION}/Accounts/{AccountSid}/Messages/{Sid}.json`;
  return {
    openapi: '3.1.0',
    info: {
      title: 'SMS gateway: Twilio-compatible Messages API',
      version,
      description:
        'The subset of Twilio\'s Messages API this gateway serves, so that code written for Twilio sends through it. HTTP Basic ' +
        'with a Twilio credential of the gateway (its AccountSid and auth token), form-encoded parameters, Twilio\'s error ' +
        'shape. Parameters it does not list are ignored, as Twilio ignores what it does not know; media is refused (the ' +
        'phones send SMS). docs/twilio.md maps every field, status and error code.',
    },
    servers: [{ url: publicUrl ? publicUrl.replace(/\/+$/, '') : '/' }],
    security: [{ accountSid: [] }],
    paths: {
      [list]: {
        post: {
          operationId: 'twilioCreateMessage',
          summary: 'Send an SMS',
          parameters: [
            accountSid,
            {
              name: 'I-Twilio-Idempotency-Token',
              in: 'header',
              required: false,
              description: 'a retry with the same token answers the first message instead of sending another',
              schema: { type: 'string', minLength: 1, maxLength: 255 },
            },
          ],
          requestBody: {
            required: true,
            content: {
              'application/x-www-form-urlencoded': {
                schema: {
                  type: 'object',
                  required: ['To', 'Body'],
                  properties: {
                    To: { type: 'string', description: 'the recipient, international format' },
                    Body: {
                      type: 'string',
                      minLength: 1,
                      description:
                        `at most ${MESSAGE_MAX_CHARACTERS} characters, counted as a person counts them (grapheme clusters: an emoji ` +
                        'with a skin tone is one character; no maxLength, which would count code points)',
                      'x-maxCharacters': MESSAGE_MAX_CHARACTERS,
                    },
                    From: { type: 'string', description: 'a phone of the account, by device id or name; a phone number or absent: any phone of the account' },
                    MessagingServiceSid: { type: 'string', description: 'ignored: any phone of the account sends it' },
                    StatusCallback: { type: 'string', format: 'uri', maxLength: 2048, description: 'gets a signed form POST at each status' },
                    SendAt: { type: 'string', format: 'date-time', description: 'with ScheduleType=fixed: when to send it, in the future' },
                    ScheduleType: { type: 'string', enum: ['fixed'] },
                    ValidityPeriod: { type: 'integer', minimum: 1, maximum: 36_000, description: 'seconds from when it may be sent; expires if no phone took it by then' },
                  },
                },
              },
            },
          },
          responses: {
            201: message('the SMS, stored and queued'),
            400: error('a parameter is missing or wrong (21604 To, 21602 Body, 21617 too long, 21211 phone number, 21606 From, 21610 opted out, 21620 media, 35111/35114 SendAt, 20001 others)'),
            401: COMMON_ERRORS[401],
            413: error('the body is larger than the gateway takes (20001)'),
            415: error('the parameters are not form-encoded (20001)'),
            429: COMMON_ERRORS[429],
            503: error('no phone can send it now (20429)'),
          },
        },
        get: {
          operationId: 'twilioListMessages',
          summary: 'List SMS, newest first',
          parameters: [
            accountSid,
            { name: 'To', in: 'query', required: false, schema: { type: 'string' } },
            { name: 'From', in: 'query', required: false, description: 'a device id', schema: { type: 'string' } },
            { name: 'DateSent', in: 'query', required: false, description: 'YYYY-MM-DD: created that day (UTC)', schema: { type: 'string' } },
            { name: 'DateSent<', in: 'query', required: false, description: 'YYYY-MM-DD: created that day or before', schema: { type: 'string' } },
            { name: 'DateSent>', in: 'query', required: false, description: 'YYYY-MM-DD: created that day or after', schema: { type: 'string' } },
            { name: 'PageSize', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } },
            { name: 'Page', in: 'query', required: false, schema: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 } },
            { name: 'PageToken', in: 'query', required: false, description: 'from next_page_uri; left out for the first page (a blank one is refused, 400 20001)', schema: { type: 'string' } },
          ],
          responses: {
            200: { description: 'a page', content: { 'application/json': { schema: { $ref: '#/components/schemas/MessagePage' } } } },
            400: error('a parameter cannot be read (20001)'),
            401: COMMON_ERRORS[401],
            429: COMMON_ERRORS[429],
          },
        },
      },
      [one]: {
        get: {
          operationId: 'twilioFetchMessage',
          summary: 'Read one SMS',
          parameters: [accountSid, messageSid],
          responses: { 200: message('the SMS'), ...COMMON_ERRORS },
        },
        post: {
          operationId: 'twilioUpdateMessage',
          summary: 'Cancel an SMS no phone has taken yet',
          parameters: [accountSid, messageSid],
          requestBody: {
            required: true,
            content: {
              'application/x-www-form-urlencoded': {
                schema: { type: 'object', required: ['Status'], properties: { Status: { type: 'string', enum: ['canceled'], description: 'the only change supported' } } },
              },
            },
          },
          responses: {
            200: message('the SMS, canceled'),
            400: error('Status is missing or not canceled (20001)'),
            409: error('a phone already took it, or it already ended (20009)'),
            413: error('the body is larger than the gateway takes (20001)'),
            415: error('the parameters are not form-encoded (20001)'),
            ...COMMON_ERRORS,
          },
        },
        delete: {
          operationId: 'twilioDeleteMessage',
          summary: 'Delete an SMS record',
          parameters: [accountSid, messageSid],
          responses: { 204: { description: 'deleted' }, ...COMMON_ERRORS },
        },
      },
    },
    components: {
      securitySchemes: { accountSid: { type: 'http', scheme: 'basic', description: 'a Twilio credential of the gateway: its AccountSid as the user name, its auth token as the password' } },
      schemas: { Message, MessagePage, Error: TwilioErrorBody },
    },
  };
}
