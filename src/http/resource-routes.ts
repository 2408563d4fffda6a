// How a module declares its routes, saying once what they share. A resource (webhooks, keys,
// contacts) names its tag, read and write permissions, the id parameters with their not-found
// errors, and how one is presented; its routes then say only their own path, names, body or query,
// extra errors and the one service call that answers them: resourceRoutes(). Routes that are no
// one resource's share a tag and permissions (groupRoutes()), and the account's own settings are
// read and changed without an id (settingsRoutes()). Every route is still a plain RouteDefinition
// underneath, so validation and the OpenAPI document see it as declared. The framing of each kind
// of answer (201 created, 200 one, 204 deleted, a page with next_cursor) is written once below.
import type { Static, TSchema } from '@sinclair/typebox';
import type { ErrorCode } from '../common/errors.ts';
import type { RequestAuth } from './middleware/authenticate.ts';
import { decodeCursor, page, type Cursor } from './pagination.ts';
import { defineRoute, type RouteDefinition, type RouteInput, type RouteResponse } from './route.ts';

/** Where a route is, what it is called and who may call it. */
type Heading = Pick<RouteDefinition, 'path' | 'operationId' | 'summary' | 'description' | 'tag' | 'permission' | 'errors'>;

type Optional<S> = S extends TSchema ? S : undefined;

interface OneRoute<P extends TSchema | undefined> extends Heading {
  params?: P;
  /** The answer's description and schema. */
  answer: RouteResponse;
}

type BodyRoute<B extends TSchema, P extends TSchema | undefined> = OneRoute<P> & { body: B };
/**
 * What a handler answers as the body: an object, never nothing (an arrow function whose object
 * lacks its parentheses answers undefined; this catches it when compiled).
 */
type Answer = Promise<object>;
type Write<B, P> = (input: RouteInput<B, undefined, P>) => Answer;

/** A route that takes a body and answers `status` with what `write` answers. */
function writeRoute<B extends TSchema, P extends TSchema | undefined>(method: 'post' | 'patch', status: 200 | 201, route: BodyRoute<B, P>, write: Write<B, P>): RouteDefinition {
  const { answer, ...rest } = route;
  return defineRoute<B, undefined, Optional<P>>({
    method,
    ...(rest as Heading & { body: B; params?: Optional<P> }),
    responses: { [status]: answer },
    async handle(input) {
      return { status, body: await write(input as RouteInput<B, undefined, P>) };
    },
  });
}

/** POST a new resource: 201 with it as presented. */
function createOneRoute<B extends TSchema, P extends TSchema | undefined = undefined>(route: BodyRoute<B, P> & { create: Write<B, P> }): RouteDefinition {
  const { create, ...rest } = route;
  return writeRoute('post', 201, rest, create);
}

/** PATCH one resource: 200 with it as changed. */
function updateOneRoute<B extends TSchema, P extends TSchema | undefined = undefined>(route: BodyRoute<B, P> & { update: Write<B, P> }): RouteDefinition {
  const { update, ...rest } = route;
  return writeRoute('patch', 200, rest, update);
}

/**
 * GET one resource by its path parameters, or the account's own one (its settings) without any:
 * 200 with it as presented (a not-found error is the route's to name).
 */
function readOneRoute<P extends TSchema | undefined = undefined>(route: OneRoute<P> & { read(input: RouteInput<undefined, undefined, P>): Answer }): RouteDefinition {
  const { answer, read, ...rest } = route;
  return defineRoute<undefined, undefined, Optional<P>>({
    method: 'get',
    ...(rest as Heading & { params?: Optional<P> }),
    responses: { 200: answer },
    async handle(input) {
      return { status: 200, body: await read(input as RouteInput<undefined, undefined, P>) };
    },
  });
}

/** DELETE one resource by its path parameters: 204 and no body. */
function deleteOneRoute<P extends TSchema>(
  route: Heading & { params: P; /** The 204's description; "deleted" unless named. */ done?: string; remove(input: RouteInput<undefined, undefined, P>): Promise<unknown> },
): RouteDefinition {
  const { done = 'deleted', remove, ...rest } = route;
  return defineRoute<undefined, undefined, P>({
    method: 'delete',
    ...rest,
    responses: { 204: { description: done } },
    async handle(input) {
      await remove(input);
      return { status: 204 };
    },
  });
}

/** The query every paged list takes (PageQuery), with whatever filters a list adds. */
type PagedQuery = TSchema & { static: { limit: number; cursor?: string } };

/**
 * GET a page of resources, newest first, after the cursor the query names: { data, next_cursor },
 * next_cursor naming the page after this one (null on the last page).
 */
function listPageRoute<Q extends PagedQuery, Row extends { created_at: Date; id: string }, P extends TSchema | undefined = undefined>(
  route: OneRoute<P> & {
    query: Q;
    /** The rows after the cursor: up to limit + 1 of them, the one past the limit telling that another page follows. */
    list(input: RouteInput<undefined, Q, P>, cursor: Cursor | undefined): Promise<Row[]>;
    present(row: Row, auth: RequestAuth): unknown;
  },
): RouteDefinition {
  const { answer, list, present, ...rest } = route;
  return defineRoute<undefined, Q, Optional<P>>({
    method: 'get',
    ...(rest as Heading & { query: Q; params?: Optional<P> }),
    responses: { 200: answer },
    async handle(input) {
      const query = input.query as Static<PagedQuery>;
      const rows = await list(input as RouteInput<undefined, Q, P>, decodeCursor(query.cursor));
      const { rows: kept, nextCursor } = page(rows, query.limit);
      return { status: 200, body: { data: kept.map((row) => present(row, input.auth)), next_cursor: nextCursor } };
    },
  });
}

/** GET every one of the account's resources of a kind, few enough to need no pages: 200 with { data }. */
function listAllRoute<Row>(
  route: Heading & { answer: RouteResponse; list(input: RouteInput<undefined, undefined, undefined>): Promise<Row[]>; present(row: Row, auth: RequestAuth): unknown },
): RouteDefinition {
  const { answer, list, present, ...rest } = route;
  return defineRoute({
    method: 'get',
    ...rest,
    responses: { 200: answer },
    async handle(input) {
      return { status: 200, body: { data: (await list(input)).map((row) => present(row, input.auth)) } };
    },
  });
}

type RoutePermission = RouteDefinition['permission'];
/** What names one route: its path, operation id, summary and (optionally) a longer description. */
type Named = Pick<RouteDefinition, 'path' | 'operationId' | 'summary' | 'description'>;
/** A route's own errors, besides the ones its resource adds. */
type OwnErrors = { errors?: ErrorCode[] };
/** The answer's description where it is not the resource's own (for example "the key, with revoked_at"). */
type OwnAnswer = { answer?: string };

/**
 * What every route of one kind of resource shares, said once: where the docs list it, who may
 * read it and who may change it, the path parameters naming one of them with the errors when they
 * name none, and how one is answered.
 */
export interface Resource<P extends TSchema, Row> {
  tag: string;
  /** The permission reading takes (GET); every other method takes `write`. */
  read: RoutePermission;
  write: RoutePermission;
  /** The path parameters naming one of them (`/:id`). */
  params: P;
  /** What a request naming none of them answers: a malformed or an unknown id. */
  missing: ErrorCode[];
  /** One of them as answered, and how a stored row is presented. */
  one: RouteResponse;
  present(row: Row, auth: RequestAuth): unknown;
}

type OneInput<B, P> = RouteInput<B, undefined, P>;
/** What a paged list orders its rows by. */
type Paged = { created_at: Date; id: string };
/** A paged list route, as its module declares it. */
type PageRoute<Q extends PagedQuery, R, LP extends TSchema | undefined> = Named &
  OwnErrors & { params?: LP; query: Q; answer: RouteResponse; list(input: RouteInput<undefined, Q, LP>, cursor: Cursor | undefined): Promise<R[]> };

/**
 * The routes of one kind of resource, each saying only what is its own: its path and names, its
 * body or query, its errors beyond the resource's, and the one service call that answers it.
 */
export function resourceRoutes<P extends TSchema, Row>(resource: Resource<P, Row>) {
  const { tag, read, write, params, missing, one, present } = resource;
  const answered = ({ answer }: OwnAnswer): RouteResponse => (answer ? { ...one, description: answer } : one);
  const naming = ({ errors = [] }: OwnErrors): ErrorCode[] => [...missing, ...errors.filter((code) => !missing.includes(code))];
  /** GET a page of them, presented as the resource presents them. */
  function list<Q extends PagedQuery, LP extends TSchema | undefined = undefined>(route: PageRoute<Q, Row & Paged, LP> & { present?: undefined }): RouteDefinition;
  /** GET a page of rows of another kind (under one of them), with their own presenter. */
  function list<Q extends PagedQuery, R extends Paged, LP extends TSchema | undefined = undefined>(route: PageRoute<Q, R, LP> & { present(row: R, auth: RequestAuth): unknown }): RouteDefinition;
  function list<Q extends PagedQuery, R extends Paged, LP extends TSchema | undefined>(route: PageRoute<Q, R, LP> & { present?(row: R, auth: RequestAuth): unknown }): RouteDefinition {
    // Without a presenter of their own, the rows are the resource's (the first signature).
    return listPageRoute<Q, R, LP>({ ...route, tag, permission: read, present: route.present ?? (present as (row: Paged, auth: RequestAuth) => unknown) });
  }
  return {
    /** GET a page of them (or of rows under one of them, presented their own way). */
    list,
    /** GET all of them, few enough to need no pages. */
    listAll(route: Named & { answer: RouteResponse; list(input: RouteInput<undefined, undefined, undefined>): Promise<Row[]> }): RouteDefinition {
      return listAllRoute<Row>({ ...route, tag, permission: read, present });
    },
    /** POST a new one: 201 with it. */
    create<B extends TSchema>(route: Named & OwnErrors & OwnAnswer & { body: B; create(input: OneInput<B, undefined>): Promise<Row> }): RouteDefinition {
      const { create, answer, ...rest } = route;
      return createOneRoute<B>({ ...rest, tag, permission: write, answer: answered({ answer }), create: async (input) => present(await create(input), input.auth) as object });
    },
    /** GET one: 200 with it. */
    get(route: Named & OwnErrors & OwnAnswer & { read(input: OneInput<undefined, P>): Promise<Row> }): RouteDefinition {
      const { read: get, answer, ...rest } = route;
      return readOneRoute<P>({ ...rest, tag, permission: read, params, errors: naming(route), answer: answered({ answer }), read: async (input) => present(await get(input), input.auth) as object });
    },
    /** PATCH one: 200 with it as changed. */
    update<B extends TSchema>(route: Named & OwnErrors & OwnAnswer & { body: B; update(input: OneInput<B, P>): Promise<Row> }): RouteDefinition {
      const { update, answer, ...rest } = route;
      return updateOneRoute<B, P>({ ...rest, tag, permission: write, params, errors: naming(route), answer: answered({ answer }), update: async (input) => present(await update(input), input.auth) as object });
    },
    /** DELETE one: 204. */
    remove(route: Named & OwnErrors & { done?: string; remove(input: OneInput<undefined, P>): Promise<unknown> }): RouteDefinition {
      return deleteOneRoute<P>({ ...route, tag, permission: write, params, errors: naming(route) });
    },
    /** Do something to one (POST, or a DELETE that keeps it, as a revocation): 200 with it after. */
    act<B extends TSchema | undefined = undefined>(
      route: Named & OwnErrors & OwnAnswer & Pick<RouteDefinition, 'bodyOptional'> & { method: 'post' | 'delete'; body?: B; act(input: OneInput<B, P>): Promise<Row> },
    ): RouteDefinition {
      const { act, answer, ...rest } = route;
      return defineRoute<B, undefined, P>({
        ...rest,
        tag,
        permission: write,
        params,
        errors: naming(route),
        responses: { 200: answered({ answer }) },
        async handle(input) {
          return { status: 200, body: present(await act(input as OneInput<B, P>), input.auth) };
        },
      });
    },
    /**
     * Any other route on one of them (a rotation, a reply) whose answer is not the resource's own:
     * its tag, permission, the id parameters and their errors filled in, as for get or update.
     */
    routeOnOne<B extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined>(
      route: Omit<RouteDefinition<B, Q, P>, 'tag' | 'permission' | 'params'> & { permission?: RoutePermission },
    ): RouteDefinition {
      return defineRoute<B, Q, P>({ tag, permission: route.method === 'get' ? read : write, ...route, params, errors: naming(route) });
    },
    /** Any other route of this resource: its tag, and the permission its method takes, filled in. */
    route: groupRoutes({ tag, read, write }).route,
  };
}

/**
 * What the routes of a module share when they are no one resource's (a session, an export, the
 * legacy calls): where the docs list them, and who may read and who may change. A module that
 * only reads names no `write`.
 */
export interface RouteGroup {
  tag: string;
  /** The permission reading takes (GET); every other method takes `write`. */
  read: RoutePermission;
  write?: RoutePermission;
}

/** The routes of a group, each saying only what is its own; the tag and permission are filled in. */
export function groupRoutes({ tag, read, write }: RouteGroup) {
  const permissionOf = (method: RouteDefinition['method']): RoutePermission => {
    const permission = method === 'get' ? read : write;
    // Thrown where the routes are declared, at start: a group that only reads has no route that changes.
    if (!permission) throw new Error(`the ${tag} routes only read: a ${method} route names its permission`);
    return permission;
  };
  return {
    /** GET a page of rows, each presented as `present` says. */
    list<Q extends PagedQuery, Row extends { created_at: Date; id: string }>(
      route: Named & OwnErrors & { query: Q; answer: RouteResponse; list(input: RouteInput<undefined, Q, undefined>, cursor: Cursor | undefined): Promise<Row[]>; present(row: Row, auth: RequestAuth): unknown },
    ): RouteDefinition {
      return listPageRoute<Q, Row>({ ...route, tag, permission: read });
    },
    /** Any route: its tag, and the permission its method takes unless it names its own. */
    route<B extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined, RP extends TSchema | undefined = undefined>(
      route: Omit<RouteDefinition<B, Q, RP>, 'tag' | 'permission'> & { permission?: RoutePermission },
    ): RouteDefinition {
      return defineRoute<B, Q, RP>({ tag, ...route, permission: route.permission ?? permissionOf(route.method) });
    },
  };
}

/**
 * The account's own one of a kind, its settings, which no id names: read them (200) and change
 * them (PATCH, or PUT where the body replaces them whole: 200 with them after).
 */
export function settingsRoutes<Row>(settings: RouteGroup & { write: RoutePermission; one: RouteResponse; present(row: Row, auth: RequestAuth): unknown }) {
  const { tag, read, write, one, present } = settings;
  const answered = ({ answer }: OwnAnswer): RouteResponse => (answer ? { ...one, description: answer } : one);
  return {
    ...groupRoutes(settings),
    /** GET them: 200 with them. */
    get(route: Named & OwnErrors & OwnAnswer & { read(input: OneInput<undefined, undefined>): Promise<Row> }): RouteDefinition {
      const { read: get, answer, ...rest } = route;
      return readOneRoute({ ...rest, tag, permission: read, answer: answered({ answer }), read: async (input) => present(await get(input), input.auth) as object });
    },
    /** PATCH them (or PUT them whole): 200 with them after. */
    update<B extends TSchema>(route: Named & OwnErrors & OwnAnswer & { method?: 'patch' | 'put'; body: B; update(input: OneInput<B, undefined>): Promise<Row> }): RouteDefinition {
      const { method = 'patch', update, answer, ...rest } = route;
      return defineRoute<B>({
        method,
        ...rest,
        tag,
        permission: write,
        responses: { 200: answered({ answer }) },
        async handle(input) {
          return { status: 200, body: present(await update(input as OneInput<B, undefined>), input.auth) };
        },
      });
    },
  };
}
