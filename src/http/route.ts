// A route is declared once, as data: method, path, permission, schemas, responses and a handler.
// The same declaration mounts the endpoint on the router and writes its OpenAPI operation, so
// the published document cannot drift from what is served. A handler reads like a checklist:
// authenticate -> authorize -> validate -> one service call -> present.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import { AppError, type ErrorCode } from '../common/errors.ts';
import type { Permission } from '../modules/api-keys/permissions.ts';
import { check, compile, refuseNul } from './validation.ts';
import { placingDetails } from './detail-places.ts';
import { authenticateRequest, type Authenticator, type RequestAuth } from './middleware/authenticate.ts';
import { createCsvReader, type BodyReader } from './middleware/json-body.ts';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

type Input<S> = S extends TSchema ? Static<S> : undefined;

export interface RouteInput<B, Q, P> {
  body: Input<B>;
  query: Input<Q>;
  params: Input<P>;
  auth: RequestAuth;
  ctx: Context;
}

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteResponse {
  description: string;
  schema?: TSchema;
  /** application/json unless named (an event stream). */
  contentType?: string;
  /** Headers the answer carries, for the docs (the handler sets them). */
  headers?: Record<string, { description: string; schema: TSchema }>;
}

export interface RouteDefinition<
  B extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
  P extends TSchema | undefined = TSchema | undefined,
> {
  method: HttpMethod;
  /** Koa path syntax: `/devices/:id/settings`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /**
   * The permission the key must hold. 'session': the logged-in user's own session
   * endpoints, which take a session cookie and no key, and stay open to a user who must change
   * their password. 'admin': a session of an instance administrator (a user with is_admin) who
   * has set their own password. 'public': no authentication at all (logging in). 'device': a
   * phone's own credentials (device id and token as HTTP Basic), which the handler checks itself.
   */
  permission: Permission | 'session' | 'admin' | 'public' | 'device';
  body?: B;
  /**
   * A body the handler streams itself, never read nor parsed here (an upload): the types it takes,
   * for the OpenAPI document. Such a route declares no `body`.
   */
  rawBody?: { contentTypes: string[]; description: string };
  /** The body as the OpenAPI document shows it, when the route checks parts of it itself. */
  documentedBody?: TSchema;
  query?: Q;
  /** The query as the OpenAPI document shows it, when the route checks parts of it itself (an id it also takes from the body). */
  documentedQuery?: TSchema;
  params?: P;
  /** Where a route takes a body from a query string as well (legacy DELETE /sms/del). */
  bodyOptional?: boolean;
  /** Larger bodies than BODY_LIMIT, for batch routes. */
  bodyLimitBytes?: number;
  /** Takes an Idempotency-Key header (documented in OpenAPI; the handler applies it). */
  idempotent?: boolean;
  /** Also takes text/csv: turns the text into the JSON body its schema validates (400 if it cannot). */
  csv?: (text: string) => unknown | Promise<unknown>;
  /**
   * Called once the caller is authorized, before the body is read: throws to refuse the request
   * (a route's own concurrency limit), or answers what to call when the request has ended.
   */
  admit?: (auth: RequestAuth, ctx: Context) => () => void;
  responses: Record<number, RouteResponse>;
  /** Error codes the route can answer with besides the ones every route has; for the docs. */
  errors?: ErrorCode[];
  handle(input: RouteInput<B, Q, P>): Promise<RouteResult>;
}

/** Declares a route with its handler's input typed from its schemas. */
export function defineRoute<
  B extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  P extends TSchema | undefined = undefined,
>(definition: RouteDefinition<B, Q, P>): RouteDefinition {
  return definition as unknown as RouteDefinition;
}

export interface RouteContext {
  prefix: string;
  /** Whether query parameters a route does not declare are ignored on every method (else on GET only). */
  ignoresUnknownQuery: boolean;
  authenticator: Authenticator;
  readBody: BodyReader;
  /** A body reader with another size limit, for routes that declare one. */
  readerFor: (limitBytes: number) => BodyReader;
}

/**
 * Mounts routes on a router, each behind authentication, authorization and validation; returns
 * the Allow header of each of their fixed paths (see shadowedPaths).
 */
export function mountRoutes(router: Router, routes: RouteDefinition[], { prefix, ignoresUnknownQuery, authenticator, readBody, readerFor }: RouteContext): Map<string, string> {
  for (const route of routes) {
    const shadowed = shadowedPaths(route, routes, prefix);
    const jsonReader = route.bodyLimitBytes ? readerFor(route.bodyLimitBytes) : readBody;
    const csvReader = route.csv ? createCsvReader(route.bodyLimitBytes ?? 1024 * 1024, jsonReader) : undefined;
    const read = async (ctx: Context): Promise<unknown> => {
      if (!csvReader) return jsonReader(ctx);
      const read = await csvReader(ctx);
      return 'csv' in read ? await route.csv!(read.csv) : read.json;
    };
    const strictQuery = refusesUnknownQuery(route.method, ignoresUnknownQuery);
    // Where unknown parameters are refused, a route that declares no query string takes none.
    const querySchema = route.query ?? (strictQuery ? NO_QUERY : undefined);
    const declaredQuery = new Set(Object.keys((route.query as { properties?: object } | undefined)?.properties ?? {}));
    const placeDetails = placingDetails({
      params: route.params,
      query: route.documentedQuery ?? route.query,
      body: route.documentedBody ?? route.body,
      takesBody: Boolean(route.body ?? route.documentedBody ?? route.rawBody),
    });
    const validators: Partial<Record<'body' | 'query' | 'path', ValidateFunction>> = {
      ...(route.body ? { body: compile(route.body, 'body') } : {}),
      ...(querySchema ? { query: compile(querySchema, 'query') } : {}),
      ...(route.params ? { path: compile(route.params, 'path') } : {}),
    };
    router[route.method](prefix + route.path, async (ctx) => {
      const allow = shadowed.get(ctx.path);
      if (allow) {
        ctx.set('Allow', allow);
        throw new AppError('method_not_allowed');
      }
      const auth = route.permission === 'public' || route.permission === 'device' ? NOBODY : await authenticateRequest(ctx, authenticator);
      authorize(route, auth);
      // A route's own limit (admit) is taken before the body is read, and held until the answer is made.
      const release = route.admit?.(auth, ctx);
      try {
        // Copies, so that coercion and defaults never touch Koa's own objects.
        const params = { ...ctx.params };
        const query = strictQuery ? { ...ctx.query } : declaredOnly(ctx.query, declaredQuery);
        let body = route.body ? await read(ctx) : undefined;
        refuseNul(params, 'path');
        refuseNul(query, 'query');
        refuseNul(body, 'body');
        if (validators.path) check(validators.path, params, 'path');
        if (validators.query) check(validators.query, query, 'query');
        if (validators.body) {
          if (body === undefined && route.bodyOptional) body = {};
          check(validators.body, body, 'body');
        }
        const result = await route.handle({ body, query, params, auth, ctx } as unknown as RouteInput<never, never, never>);
        ctx.status = result.status;
        if (result.headers) ctx.set(result.headers);
        if (result.body !== undefined) ctx.body = result.body;
      } catch (error) {
        placeDetails(error);
        throw error;
      } finally {
        release?.();
      }
    });
  }
  const allowOfFixed = new Map<string, string>();
  for (const route of routes.filter((each) => !each.path.includes(':'))) {
    const served = routes.filter((other) => other.path === route.path).map((other) => other.method.toUpperCase());
    allowOfFixed.set(prefix + route.path, served.join(', '));
  }
  return allowOfFixed;
}

const NO_QUERY = Type.Object({}, { additionalProperties: false });

/**
 * Whether a query parameter the route does not declare is a 400. A GET ignores it, in every family:
 * browsers' and HTTP libraries' cache-busters (`_=1732800000000`) and tracking parameters are
 * added to reads without the client's code knowing, and a read changes nothing a stray parameter
 * could have been meant to change. The other methods refuse it, so that a misspelt parameter of a
 * change is not silently dropped; the legacy family ignores it there too, as its clients expect.
 */
export function refusesUnknownQuery(method: HttpMethod, familyIgnores: boolean): boolean {
  return method !== 'get' && !familyIgnores;
}

function declaredOnly(query: Record<string, unknown>, declared: Set<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([name]) => declared.has(name)));
}

/** What a public route's handler gets: no account, no permission. */
const NOBODY: RequestAuth = { accountId: '', keyId: '', permissions: new Set() };

function authorize(route: RouteDefinition, auth: RequestAuth): void {
  if (route.permission === 'public' || route.permission === 'device') return;
  if (route.permission === 'session' || route.permission === 'admin') {
    if (!auth.session) throw new AppError('forbidden', 'this endpoint is for a logged-in user\'s session, not an API key');
    if (route.permission === 'session') return;
  }
  // A one-time password was known to whoever set it: nothing is done with it but replacing it.
  if (auth.session?.user.must_change_password) throw new AppError('password_change_required');
  if (route.permission === 'admin') {
    // Checked here, before the request's input is read: a caller who may not use the route
    // learns that first, whatever else is wrong with the request.
    if (!auth.session!.user.is_admin) throw new AppError('admin_only');
    return;
  }
  if (!auth.permissions.has(route.permission)) {
    throw new AppError(
      'forbidden',
      auth.session ? `the user's role (${auth.session.user.role}) does not allow this (${route.permission})` : `the API key lacks the ${route.permission} permission`,
    );
  }
}

/**
 * A fixed path such as /sms/bulk also matches /sms/:id: GET /sms/bulk would reach "read SMS
 * bulk" and answer 400 invalid_id. For each route with parameters: the fixed paths it shadows,
 * with the methods they serve, so that it answers 405 with their Allow header instead.
 */
function shadowedPaths(route: RouteDefinition, routes: RouteDefinition[], prefix: string): Map<string, string> {
  const shadowed = new Map<string, string>();
  if (!route.path.includes(':')) return shadowed;
  const pattern = new RegExp(`^${route.path.replace(/:[^/]+/g, '[^/]+')}$`);
  for (const fixed of new Set(routes.filter((other) => !other.path.includes(':')).map((other) => other.path))) {
    const served = routes.filter((other) => other.path === fixed).map((other) => other.method);
    if (pattern.test(fixed) && !served.includes(route.method)) shadowed.set(prefix + fixed, served.map((m) => m.toUpperCase()).join(', '));
  }
  return shadowed;
}
