// The order in which an account's devices are offered its pool (the gateway
// chooses): the least busy first, taking turns among equally busy ones, so that a queue spreads
// over the fleet instead of filling the first phone's window.

export interface Candidate {
  id: string;
  in_flight: number;
}

/**
 * The least busy candidate; among equals, the first after `previous` in id order (round robin).
 * One pass, no sorting: an account may have thousands of phones.
 */
export function chooseDevice(candidates: Iterable<Candidate>, previous: string | undefined): string | undefined {
  let least = Number.POSITIVE_INFINITY;
  let first: string | undefined;
  let next: string | undefined;
  for (const candidate of candidates) {
    if (candidate.in_flight > least) continue;
    if (candidate.in_flight < least) {
      least = candidate.in_flight;
      first = next = undefined;
    }
    if (first === undefined || candidate.id < first) first = candidate.id;
    if (previous !== undefined && candidate.id > previous && (next === undefined || candidate.id < next)) next = candidate.id;
  }
  return next ?? first;
}

/** Every candidate, in the order chooseDevice would pick them one after another. */
export function deviceOrder(candidates: Candidate[], previous: string | undefined): string[] {
  // Least busy first; among equals, those after `previous` in id order, then the rest.
  return [...candidates]
    .sort((a, b) => a.in_flight - b.in_flight || rotation(a.id, previous) - rotation(b.id, previous) || (a.id < b.id ? -1 : 1))
    .map((candidate) => candidate.id);
}

function rotation(id: string, previous: string | undefined): number {
  return previous !== undefined && id > previous ? 0 : 1;
}
