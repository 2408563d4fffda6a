// Writes the OpenAPI 3.1 document from the route declarations that are actually mounted, so
// the document and the server cannot disagree (a test compares them).
import type { TSchema } from '@sinclair/typebox';
import { ERROR_CATALOG, type ErrorCode } from '../common/errors.ts';
import { documented } from './openapi-schema.ts';
import { refusesUnknownQuery, type RouteDefinition } from './route.ts';
import { SESSION_COOKIE } from './session-cookie.ts';

export interface ApiFamily {
  /** Mount point of the family's routes, such as /api/ext/v1. */
  prefix: string;
  routes: RouteDefinition[];
  /**
   * Query parameters a route does not declare are ignored on every method, not refused: the legacy
   * family, whose clients add their own (a cache-buster such as `_=1732541234`) to POSTs too. Every
   * family ignores them on GET (see route.ts); the others refuse them on the other methods.
   */
  ignoresUnknownQuery?: boolean;
}

/**
 * Errors any authenticated route can answer with: a bad or throttled key, a missing permission,
 * and the two 503s with Retry-After (admission control, database outage).
 */
const COMMON_ERRORS: ErrorCode[] = ['unauthorized', 'forbidden', 'too_many_auth_failures', 'overloaded', 'database_unavailable'];
const BODY_ERRORS: ErrorCode[] = ['invalid_json', 'validation_failed', 'payload_too_large', 'unsupported_media_type'];
const PATH_ERRORS: ErrorCode[] = ['invalid_id', 'validation_failed'];

const ErrorBody = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['message', 'code'],
      properties: {
        message: { type: 'string', description: 'for people' },
        code: { type: 'string', enum: Object.keys(ERROR_CATALOG), description: 'stable; for programs' },
        details: {
          type: 'array',
          items: {
            type: 'object',
            required: ['field', 'in', 'message'],
            properties: {
              field: { type: 'string', description: 'the input at fault, as a dotted path (messages.3.phone); empty for the request as a whole' },
              in: { type: 'string', enum: ['body', 'query', 'path', 'header'], description: 'the part of the request that holds the field' },
              message: { type: 'string', description: 'for people' },
              code: {
                type: 'string',
                enum: Object.keys(ERROR_CATALOG),
                description: "only where this input is refused for a reason with its own code (recipient_opted_out on a bulk send's row); for programs",
              },
            },
          },
        },
      },
    },
  },
};

/** koa path syntax to OpenAPI: /devices/:id/settings -> /devices/{id}/settings */
export function openApiPath(prefix: string, path: string): string {
  return prefix + path.replace(/:(\w+)/g, '{$1}');
}

export interface DocumentOptions {
  /** PUBLIC_URL: where clients reach the gateway; without it the document names no host (`/`). */
  publicUrl?: string | undefined;
}

export function buildOpenApi(families: ApiFamily[], version: string, options: DocumentOptions = {}): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const family of families) {
    for (const route of family.routes) {
      const path = openApiPath(family.prefix, route.path);
      paths[path] ??= {};
      paths[path][route.method] = operation(route, family);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'SMS gateway API',
      version,
      description:
        'Sends SMS through the account\'s Android phones. Every request carries `Authorization: Bearer <API key>`, or the ' +
        'control panel\'s session cookie (then every state change also carries the session\'s `X-CSRF-Token`); each ' +
        'operation needs the permission it names (a session: its user\'s role grants them). Errors have the body ' +
        '`{"error": {"message", "code", "details"?}}`. Members of Extended API answers that may be null are declared ' +
        'nullable, and each one\'s description says when it is null (most often: until it is known, such as an SMS\'s ' +
        'device_id until a phone claims it and a device\'s battery_level until the phone reports it). The legacy family ' +
        '(paths at the root) answers no null: a member not known yet holds a placeholder of its type, which its ' +
        'description names; the one exception is an SMS\'s to_sim, whose null means no SIM slot was asked for.\n\n' +
        'In request bodies, null given for an optional member is taken as the member not given (a client that writes every ' +
        'member of its model, null when unset, is understood); a member whose null means something of its own is declared ' +
        'nullable and its description says what, and a required member is never null. A GET ignores query parameters it ' +
        'does not declare (a cache-buster such as `_=1732800000000`); the other methods refuse them, but in the legacy ' +
        'family, which ignores them everywhere.',
    },
    // Generated clients take their base address from here; a relative one is the document's own host.
    servers: [{ url: options.publicUrl ? options.publicUrl.replace(/\/+$/, '') : '/' }],
    security: [{ bearer: [] }, { session: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'an API key from `sms-gateway keys create` or POST /keys' },
        device: { type: 'http', scheme: 'basic', description: 'a phone\'s device id as the user name and its token as the password (the MQTT credentials)' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: 'a control-panel session from POST /api/ext/v1/session; changes also need the X-CSRF-Token header',
        },
      },
      schemas: { Error: ErrorBody },
    },
  };
}

/** Routes that take other credentials than the document's default (a key or a session). */
const OWN_SECURITY = { public: [], session: [{ session: [] }], admin: [{ session: [] }], device: [{ device: [] }] } as const;

const CSV_DESCRIPTION =
  'A header row naming the columns (phone and message required; device_id, sim_slot, callback_id, send_at, valid_until, ttl, priority, category optional), ' +
  'then one SMS per row. RFC 4180 quoting; empty optional cells are "not given". Rows are validated like the JSON messages ' +
  '(a bad row is reported as messages.{index}, counting from 0 after the header).';

function operation(route: RouteDefinition, family: ApiFamily): Record<string, unknown> {
  const parameters = [
    ...schemaParameters(route.params, 'path'),
    ...schemaParameters(route.documentedQuery ?? route.query, 'query'),
    ...(route.idempotent
      ? [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              '1-255 visible ASCII characters (a UUID is usual). The same key from the same account within 24 hours replays the ' +
              'first successful response, with the header Idempotent-Replayed: true; with a different request it is 422 ' +
              'idempotency_key_reused. Concurrent requests with one key create one SMS.',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
        ]
      : []),
  ];
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(response.headers).map(([name, header]) => [name, { description: header.description, schema: documented(header.schema) }]),
            ),
          }
        : {}),
      ...(response.schema
        ? { content: { [response.contentType ?? 'application/json']: { schema: documented(response.schema) } } }
        : response.contentType
          ? { content: { [response.contentType]: { schema: { type: 'string' } } } }
          : {}),
    };
  }
  const errors = new Set<ErrorCode>([...COMMON_ERRORS, ...(route.body ? BODY_ERRORS : []), ...(route.errors ?? [])]);
  // A path parameter that cannot be read: invalid_id when it is no id, validation_failed otherwise
  // (too long, a NUL character, not of its pattern).
  if (route.params) for (const code of PATH_ERRORS) errors.add(code);
  // A query string is validated where the route declares one, and refused where the route takes none
  // but the family refuses what a route does not declare (see route.ts).
  if (route.query || refusesUnknownQuery(route.method, family.ignoresUnknownQuery ?? false)) errors.add('validation_failed');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errors) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_CATALOG[code].message}`).join('; '),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    'x-permission': route.permission,
    // Public routes need nothing; the session's own routes need the cookie (a key has no session).
    ...(OWN_SECURITY[route.permission as keyof typeof OWN_SECURITY] ? { security: OWN_SECURITY[route.permission as keyof typeof OWN_SECURITY] } : {}),
    description: `${route.description ? `${route.description}\n\n` : ''}Permission: \`${route.permission}\`.`,
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: !route.bodyOptional,
            content: {
              'application/json': { schema: documented(route.documentedBody ?? route.body) },
              ...(route.csv ? { 'text/csv': { schema: { type: 'string', description: CSV_DESCRIPTION } } } : {}),
            },
          },
        }
      : route.rawBody
        ? {
            requestBody: {
              required: true,
              description: route.rawBody.description,
              content: Object.fromEntries(route.rawBody.contentTypes.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
            },
          }
        : {}),
    responses,
  };
}

function schemaParameters(schema: TSchema | undefined, location: 'path' | 'query'): unknown[] {
  if (!schema) return [];
  const object = documented(schema) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: location,
      // A parameter with a default is optional to the caller, though the handler always has it
      // (validation fills the default in), which is why its schema does not say Optional.
      required: location === 'path' || ((object.required ?? []).includes(name) && !('default' in property)),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}
