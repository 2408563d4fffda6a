// The shapes of the upstreams and routes API, named, taken from the TypeScript SDK's schema.ts
// (generated from the gateway's route declarations) as panel/src/api/types.ts takes the others:
// a field the API renames or drops is a type error here rather than a blank cell.
import type { operations } from '../../../../sdk/typescript/src/schema.ts';

type Json<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;
type RequestOf<Id extends keyof operations> = Json<NonNullable<operations[Id]['requestBody']>>;

export type Upstream = Json<operations['listUpstreams']['responses'][200]>['data'][number];
export type UpstreamKind = Upstream['kind'];
export type LinkState = Upstream['link']['state'];
export type NewUpstream = RequestOf<'createUpstream'>;
export type UpstreamChange = RequestOf<'updateUpstream'>;

export type RoutesView = Json<operations['getRoutes']['responses'][200]>;
export type RouteRule = RoutesView['routes'][number];
export type RoutesChange = RequestOf<'setRoutes'>;

/**
 * A body whose numbers are sent as typed: the gateway judges "abc" or an empty port, and its
 * message shows beside the field, rather than the panel guessing at the rules.
 */
export type AsTyped<Body> = {
  [Key in keyof Body]: Body[Key] extends number | null | undefined ? Body[Key] | string : Body[Key] extends (infer Item)[] | undefined ? AsTyped<Item>[] : Body[Key];
};
