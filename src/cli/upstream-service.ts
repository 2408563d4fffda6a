// The upstreams module's service as a command has it: over the command's own database, holding
// no link to any provider and routing nothing. A running gateway needs no notice of what a
// command changes here: its router rereads every upstream and every account's routes every
// 5 seconds, and opens, opens again or closes its links to match.
import { systemClock } from '../common/clock.ts';
import type { Logger } from '../common/logger.ts';
import type { AccountServices } from '../composition/command-features.ts';
import { UpstreamLinks } from '../modules/upstreams/links/manager.ts';
import { UpstreamService, type RoutingChanges } from '../modules/upstreams/service.ts';
import { withAccountServices } from './context.ts';

/** How long a running gateway may take to act on a change a command made (its router's reread). */
export const TAKES_EFFECT = 'A running gateway applies a change within 5 seconds (it rereads upstreams and routes that often).';

/** Nothing routes in a command: the gateways find the change at their next reread. */
const NO_ROUTER: RoutingChanges = {
  routesChanged: () => undefined,
  upstreamChanged: async () => undefined,
};

export interface UpstreamCommandServices {
  accounts: AccountServices['accounts'];
  upstreams: UpstreamService;
}

/**
 * Runs `run` on the account lookup and the upstreams service. While a gateway holds the embedded
 * database, `overHttp` (given the Extended API's base URL) shows the same done through it.
 */
export async function withUpstreamServices<T>(run: (services: UpstreamCommandServices) => Promise<T>, overHttp?: (api: string) => string): Promise<T> {
  return withAccountServices((services, db, logger) => {
    const upstreams = new UpstreamService(db, services.secrets, linksHeldByNoOne(services.secrets, logger), systemClock, NO_ROUTER);
    return run({ accounts: services.accounts, upstreams });
  }, overHttp);
}

/** A command opens no link: the service only asks it for states, and every one is "not connected here". */
function linksHeldByNoOne(secrets: AccountServices['secrets'], logger: Logger): UpstreamLinks {
  const never = () => {
    throw new Error('a command opens no upstream link');
  };
  return new UpstreamLinks(never, secrets, { receipt: never, incoming: never }, logger);
}
