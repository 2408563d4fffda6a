// Open MQTT connections per client address (TCP and WebSocket together), so that one address
// cannot hold the broker's sockets and memory by opening connections it never uses. The cap is
// MQTT_MAX_CONNECTIONS_PER_ADDRESS; it must leave room for a phone farm behind one NAT address.
// The HTTP server counts its connections with the same class (HTTP_MAX_CONNECTIONS_PER_ADDRESS,
// src/http/server-limits.ts).
import { clientAddressKey } from '../src/common/client-address.ts';

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
