// What a connection keeps of its CONNECT for as long as it lasts.
//
// mqtt-packet's parser keeps the CONNECT it parsed as its `settings`, to read the protocol version
// (and the bridge flag) when it parses what follows: the whole packet, with the client id, the
// username and the password (a device's token) as a Buffer, about 350 bytes of heap a connected
// device. It reads nothing else of it. Here the parser keeps, in its place, one frozen object
// shared by all connections of the same version and flag.
//
// Aedes keeps the will until the connection ends. Its payload is a view of the socket read the
// CONNECT came in, which it keeps alive whole (the CONNECT's bytes, the token's among them: about
// 400 bytes a device). A device's will is "offline" (docs/asyncapi.yaml): that payload is one
// Buffer shared by all connections. Nothing writes into a will's payload: it is only read, when
// the will is checked (publish.ts) and when it is published and stored as retained.
import type { Client } from 'aedes';

interface ProtocolSettings {
  readonly protocolVersion: number;
  readonly bridgeMode: boolean;
}

const sharedSettings = new Map<string, ProtocolSettings>();

function settingsFor(protocolVersion: number, bridgeMode: boolean): ProtocolSettings {
  const key = `${protocolVersion}/${bridgeMode}`;
  let settings = sharedSettings.get(key);
  if (!settings) sharedSettings.set(key, (settings = Object.freeze({ protocolVersion, bridgeMode })));
  return settings;
}

/** The payload of a device's will, one Buffer for all connections whose will says the same. */
const OFFLINE = Buffer.from('offline');

interface ConnectLeftovers {
  protocolVersion?: number;
  bridgeMode?: boolean;
  will?: { payload?: Buffer | string } | null;
}

/**
 * Call with the CONNECT the client's parser has just parsed (Aedes' preConnect), before Aedes takes
 * its will. A parser that holds another packet (not Aedes' parser) is left as it is; a will that
 * says anything else than "offline" keeps its own payload.
 */
export function keepLessOfConnect(client: Client, packet: ConnectLeftovers): void {
  const parser = (client as Client & { _parser?: { settings?: unknown } })._parser;
  if (parser && parser.settings === packet && typeof packet.protocolVersion === 'number') {
    parser.settings = settingsFor(packet.protocolVersion, packet.bridgeMode === true);
  }
  const will = packet.will;
  if (will && Buffer.isBuffer(will.payload) && will.payload.equals(OFFLINE)) will.payload = OFFLINE;
}
