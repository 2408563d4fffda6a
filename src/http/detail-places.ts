// Every detail of a 400 says which part of the request holds its field (`in`: body, query, path,
// header), so a client can point at the right input. The validator knows the part it checks; a
// service's own refusal ("phone must be a valid phone number", "to must be after from") does not:
// the same service serves the API's bodies and query strings, the panel, MCP and the CLI. So a
// route names the part, before its answer leaves, from what the route declares.
import type { TSchema } from '@sinclair/typebox';
import { AppError, type ErrorDetail } from '../common/errors.ts';

type Part = NonNullable<ErrorDetail['in']>;

export interface DeclaredParts {
  params?: TSchema | undefined;
  query?: TSchema | undefined;
  body?: TSchema | undefined;
  /** Whether the route takes a body at all (an upload declares none it checks). */
  takesBody: boolean;
}

/**
 * A function that gives each detail of an AppError that has no `in` the part that declares its
 * field (its first name: `routes` of `routes.0.target`): the path's parameters, else the query
 * string, else the body. A field no part declares (a row's index, a CSV's header, the request as
 * a whole) is the body's when the route takes one, else the query string's.
 */
export function placingDetails(route: DeclaredParts): (error: unknown) => void {
  const namesOf = (schema: TSchema | undefined) => new Set(Object.keys((schema as { properties?: object } | undefined)?.properties ?? {}));
  const [params, query, body] = [namesOf(route.params), namesOf(route.query), namesOf(route.body)];
  const otherwise: Part = route.takesBody ? 'body' : 'query';
  const partOf = (field: string): Part => {
    const name = field.split(/[./]/)[0] ?? '';
    if (params.has(name)) return 'path';
    if (query.has(name) && !body.has(name)) return 'query';
    return otherwise;
  };
  return (error) => {
    if (!(error instanceof AppError) || !error.details?.some((detail) => !detail.in)) return;
    // New objects: a detail may be a constant that other routes throw too.
    const placed = error.details.map((detail) => (detail.in ? detail : { ...detail, in: partOf(detail.field) }));
    (error as { details: ErrorDetail[] }).details = placed;
  };
}
