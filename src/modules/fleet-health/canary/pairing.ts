// Who sends to whom in a round. The eligible SIMs in a stable order (device, then slot); in round
// r, the SIM at i sends to the one at (i + 1 + (r mod (N-1))) mod N: never to itself, each SIM
// sends one canary and receives one, and over N-1 rounds every SIM has sent to every other, so a
// failure that follows one SIM from partner to partner tells it apart from a bad partner.

export function partnersOf<T>(sims: readonly T[], round: number): [sender: T, receiver: T][] {
  const n = sims.length;
  if (n < 2) return [];
  const offset = 1 + (round % (n - 1));
  return sims.map((sender, i) => [sender, sims[(i + offset) % n]!]);
}
