// What Extended API routes need to know of the running gateway beyond its services: where phones
// reach its broker (pairing URLs) and how session cookies are set.
import type { BrokerAddress } from '../api/extended/devices/routes.ts';
import type { SessionRouteOptions } from '../api/extended/sessions/routes.ts';

export interface RouteOptions {
  broker: BrokerAddress;
  session: SessionRouteOptions;
}
