// The routes most resources have, with their answers framed once: create one (201), read one
// (200), change one (200), delete one (204), list a page of them (200, data and next_cursor) or
// all of them (200, data). Each route still declares its own path, names, permission, schemas and
// errors, as with defineRoute, so validation and the OpenAPI document see it as before; a route
// says only which service call makes its answer.
import type { Static, TSchema } from '@sinclair/typebox';
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
export function createOneRoute<B extends TSchema, P extends TSchema | undefined = undefined>(route: BodyRoute<B, P> & { create: Write<B, P> }): RouteDefinition {
  const { create, ...rest } = route;
  return writeRoute('post', 201, rest, create);
}

/** PATCH one resource: 200 with it as changed. */
export function updateOneRoute<B extends TSchema, P extends TSchema | undefined = undefined>(route: BodyRoute<B, P> & { update: Write<B, P> }): RouteDefinition {
  const { update, ...rest } = route;
  return writeRoute('patch', 200, rest, update);
}

/**
 * GET one resource by its path parameters, or the account's own one (its settings) without any:
 * 200 with it as presented (a not-found error is the route's to name).
 */
export function readOneRoute<P extends TSchema | undefined = undefined>(route: OneRoute<P> & { read(input: RouteInput<undefined, undefined, P>): Answer }): RouteDefinition {
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
export function deleteOneRoute<P extends TSchema>(
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
export function listPageRoute<Q extends PagedQuery, Row extends { created_at: Date; id: string }, P extends TSchema | undefined = undefined>(
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
export function listAllRoute<Row>(
  route: Heading & { answer: RouteResponse; list(input: RouteInput<undefined, undefined, undefined>): Promise<Row[]>; present(row: Row): unknown },
): RouteDefinition {
  const { answer, list, present, ...rest } = route;
  return defineRoute({
    method: 'get',
    ...rest,
    responses: { 200: answer },
    async handle(input) {
      return { status: 200, body: { data: (await list(input)).map((row) => present(row)) } };
    },
  });
}
