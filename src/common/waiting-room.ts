// Where a listener's connections wait until they say who they are: an MQTT connection until its
// CONNECT has arrived, an SMPP one until it is bound, an HTTP one until its first request's
// headers have arrived, an SMTP one until it has logged in. A client that connects and then says
// nothing (or trickles) holds a file descriptor for as long as the listener's timeout, so tens of
// thousands of them used to take every descriptor of the process: then no listener accepted
// anything, not a health check, not a phone, not an ESME bound long before.
//
// The room has a fixed number of places, a share of the listener's connections. When it is full a
// newcomer takes the place of the oldest waiting connection of the address that holds the most
// places, which is closed: an address that floods the room only ever pushes out its own
// connections, and a client from anywhere else still gets in. A newcomer from the address that
// already holds the most is refused instead (taking its own oldest place would only churn).
//
// Real clients pass through in milliseconds: a phone sends CONNECT with its first packet, even
// during a reconnect storm of a whole fleet, so the room stays nearly empty unless someone is
// holding connections open on purpose. Leaving is idempotent; a place is left when the client
// says who it is or when the connection closes, whichever comes first.

/** A connection's place in the room. */
export interface WaitingPlace {
  /** The connection said who it is, or closed: its place is free. Idempotent. */
  leave(): void;
}

/** What became of a newcomer: admitted (perhaps pushing out another), or refused. */
export type Arrival = { place: WaitingPlace; displaced: boolean } | { refused: true };

interface Waiting {
  close: () => void;
}

export class WaitingRoom {
  /** Waiting connections by address, each address's oldest first (a Set keeps insertion order). */
  private readonly byAddress = new Map<string, Set<Waiting>>();
  /** Addresses by how many places they hold, to find the one holding the most at once. */
  private readonly addressesHolding = new Map<number, Set<string>>();
  private mostHeld = 0;
  private waiting = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`a waiting room needs at least one place, not ${capacity}`);
  }

  /** Connections waiting now. */
  get size(): number {
    return this.waiting;
  }

  /** Places held by one address now. */
  heldBy(address: string): number {
    return this.byAddress.get(address)?.size ?? 0;
  }

  /** A place for a new connection from `address`; `close` ends it should it be pushed out later. */
  enter(address: string, close: () => void): Arrival {
    let displaced = false;
    if (this.waiting >= this.capacity) {
      const heaviest = this.heaviestAddress();
      if (heaviest === undefined || this.heldBy(heaviest) <= this.heldBy(address)) return { refused: true };
      const oldest = this.byAddress.get(heaviest)!.values().next().value!;
      this.remove(heaviest, oldest);
      oldest.close();
      displaced = true;
    }
    const entry: Waiting = { close };
    this.add(address, entry);
    let waiting = true;
    return {
      displaced,
      place: {
        leave: () => {
          if (!waiting) return;
          waiting = false;
          this.remove(address, entry);
        },
      },
    };
  }

  private heaviestAddress(): string | undefined {
    while (this.mostHeld > 0) {
      const addresses = this.addressesHolding.get(this.mostHeld);
      if (addresses && addresses.size > 0) return addresses.values().next().value;
      this.mostHeld--;
    }
    return undefined;
  }

  private add(address: string, entry: Waiting): void {
    const entries = this.byAddress.get(address) ?? new Set<Waiting>();
    this.byAddress.set(address, entries);
    this.moveAddress(address, entries.size, entries.size + 1);
    entries.add(entry);
    this.waiting++;
  }

  private remove(address: string, entry: Waiting): void {
    const entries = this.byAddress.get(address);
    if (!entries?.delete(entry)) return;
    this.waiting--;
    this.moveAddress(address, entries.size + 1, entries.size);
    if (entries.size === 0) this.byAddress.delete(address);
  }

  private moveAddress(address: string, from: number, to: number): void {
    if (from > 0) {
      const holders = this.addressesHolding.get(from)!;
      holders.delete(address);
      if (holders.size === 0) this.addressesHolding.delete(from);
    }
    if (to > 0) {
      const holders = this.addressesHolding.get(to) ?? new Set<string>();
      holders.add(address);
      this.addressesHolding.set(to, holders);
      if (to > this.mostHeld) this.mostHeld = to;
    }
  }
}
