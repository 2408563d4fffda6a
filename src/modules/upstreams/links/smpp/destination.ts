// The owner gives the SMSC's host and port, so the link is held to the gateway's outbound
// destination guard, as webhooks and the Twilio link are: without it an account owner could make
// the gateway open connections to a host on its own network. A literal address is checked before
// connecting; a host name is checked by the guard's lookup, so the address checked is the address
// connected to.
import { isIP, type LookupFunction } from 'node:net';
import type { DestinationGuard } from '../../../webhooks/outbound/destination-guard.ts';

/** What the link needs of the gateway's outbound destination guard (the webhooks' DestinationGuard fits). */
export type SmppDestinationGuard = Pick<DestinationGuard, 'lookup' | 'addressAllowed'>;

/** The guard refused the SMSC's address: the link stays down and keeps trying (the allowance may change). */
export class DestinationRefused extends Error {}

/** The code the guard's lookup fails with when a host name resolves only to refused addresses. */
const BLOCKED = 'EBLOCKED';

const HOW_TO_ALLOW = 'add it to the WEBHOOK_ALLOWED_HOSTS setting (host names, addresses or CIDR ranges) to let the gateway connect there on purpose';

/** Why the guard refuses a literal address as the SMSC's host; undefined for a host name or an allowed address. */
export function literalRefusal(guard: SmppDestinationGuard | undefined, host: string): DestinationRefused | undefined {
  if (!guard || !isIP(host) || guard.addressAllowed(host)) return undefined;
  return new DestinationRefused(`${host} is a private, loopback or reserved address, which the gateway may not reach; ${HOW_TO_ALLOW}`);
}

/** The connect error in words, naming the setting when the guard's lookup refused the host's addresses. */
export function connectError(error: NodeJS.ErrnoException, host: string): Error {
  if (error.code !== BLOCKED) return error;
  return new DestinationRefused(`${host} resolves only to private, loopback or reserved addresses, which the gateway may not reach; ${HOW_TO_ALLOW}`);
}

/** The lookup to connect with: the guard's for a host name. */
export function guardedLookup(guard: SmppDestinationGuard | undefined): { lookup?: LookupFunction } {
  return guard ? { lookup: guard.lookup as LookupFunction } : {};
}
