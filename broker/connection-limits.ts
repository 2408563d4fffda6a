// Open MQTT connections per client address (TCP and WebSocket together), so that one address
// cannot hold the broker's sockets and memory by opening connections it never uses. The cap is
// MQTT_MAX_CONNECTIONS_PER_ADDRESS; it must leave room for a phone farm behind one NAT address.
// The HTTP server counts its connections with the same class (HTTP_MAX_CONNECTIONS_PER_ADDRESS,
// src/http/server-limits.ts).
//
// And open MQTT connections in all (MQTT_MAX_CONNECTIONS), so that many addresses together cannot
// use up the process's file descriptors either: by default MQTT's share of the connection budget,
// half of it (src/common/file-descriptors.ts).
import { clientAddressKey } from '../src/common/client-address.ts';
import { defaultConnectionBudget, listenerShares, openFileLimit } from '../src/common/file-descriptors.ts';

/** MQTT's share of the process's connection budget: half of it. */
export function defaultMaxMqttConnections(fdLimit = openFileLimit()): number {
  return listenerShares(defaultConnectionBudget(fdLimit)).mqtt;
}

/** Open connections in all, up to `max`. */
export class ConnectionCap {
  private open = 0;

  constructor(readonly max: number) {}

  /** Takes a place for a new connection; false when every place is taken. */
  admit(): boolean {
    if (this.open >= this.max) return false;
    this.open++;
    return true;
  }

  /** An admitted connection closed. */
  release(): void {
    this.open = Math.max(0, this.open - 1);
  }
}

export class ConnectionsPerAddress {
  private readonly open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Takes a place for a new connection from the address; false when the address has all its places. */
  admit(address: string | undefined): boolean {
    const key = clientAddressKey(address);
    const count = this.open.get(key) ?? 0;
    if (count >= this.max) return false;
    this.open.set(key, count + 1);
    return true;
  }

  /** An admitted connection closed. */
  release(address: string | undefined): void {
    const key = clientAddressKey(address);
    const count = this.open.get(key) ?? 0;
    if (count <= 1) this.open.delete(key);
    else this.open.set(key, count - 1);
  }
}
