// broker/connect-leftovers.ts: once the CONNECT is parsed, the parser keeps only its protocol
// version and bridge flag, and reads what follows as it did with the whole CONNECT; a will saying
// "offline" shares one payload.
import { expect } from 'chai';
import { createRequire } from 'node:module';
import type { Client } from 'aedes';
import { keepLessOfConnect } from '../../broker/connect-leftovers.ts';

const require = createRequire(import.meta.url);
const mqtt = require('mqtt-packet') as {
  parser(): { settings: unknown; on(event: string, listener: (value: unknown) => void): void; parse(chunk: Buffer): number };
  generate(packet: object, options?: object): Buffer;
};

const DEVICE = 'c2a1f0e4-1d3b-4c1e-9a55-0b1d2c3e4f50';

function connect(protocolVersion: 4 | 5): object {
  return { cmd: 'connect', protocolId: 'MQTT', protocolVersion, clean: false, clientId: DEVICE, keepalive: 60, username: DEVICE, password: Buffer.from('sgd_secret_token'), will: { topic: `d/${DEVICE}/presence`, payload: Buffer.from('offline'), qos: 1, retain: true } };
}

function following(protocolVersion: 4 | 5): object[] {
  const properties = protocolVersion === 5 ? { properties: { userProperties: { a: 'b' } } } : {};
  return [
    { cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: `d/${DEVICE}/tasks`, qos: 1 }], ...properties },
    { cmd: 'publish', topic: `d/${DEVICE}/heartbeat`, payload: Buffer.from('{"battery_level":80}'), qos: 1, messageId: 2, retain: true, ...properties },
    { cmd: 'puback', messageId: 3 },
    { cmd: 'pingreq' },
  ];
}

/** Parses CONNECT then the rest; `forget` is called once the CONNECT is out, as Aedes' preConnect is. */
function parse(protocolVersion: 4 | 5, forget: boolean): { packets: unknown[]; settings: unknown } {
  const parser = mqtt.parser();
  const packets: unknown[] = [];
  parser.on('packet', (packet) => {
    packets.push(packet);
    if (forget && (packet as { cmd: string }).cmd === 'connect') keepLessOfConnect({ _parser: parser } as unknown as Client, packet as object);
  });
  parser.on('error', (error) => packets.push({ error: String(error) }));
  parser.parse(mqtt.generate(connect(protocolVersion), { protocolVersion }));
  for (const packet of following(protocolVersion)) parser.parse(mqtt.generate(packet, { protocolVersion }));
  return { packets, settings: parser.settings };
}

describe('unit: what a connection keeps of its CONNECT', () => {
  for (const version of [4, 5] as const) {
    it(`when an MQTT ${version === 4 ? '3.1.1' : '5'} connection has connected, then its parser holds no credential and reads the same packets`, () => {
      const kept = parse(version, true);
      const whole = parse(version, false);
      expect(kept.settings).to.deep.equal({ protocolVersion: version, bridgeMode: false });
      expect(JSON.stringify(kept.settings)).not.to.include('sgd_secret_token');
      expect(Object.isFrozen(kept.settings)).to.equal(true);
      expect(JSON.parse(JSON.stringify(kept.packets))).to.deep.equal(JSON.parse(JSON.stringify(whole.packets)));
      expect(kept.packets).to.have.length(5);
    });
  }

  it('when the parser holds another packet than the one given, then it is left as it is', () => {
    const parser = { settings: { protocolVersion: 4, other: true } };
    keepLessOfConnect({ _parser: parser } as unknown as Client, { protocolVersion: 4 });
    expect(parser.settings).to.deep.equal({ protocolVersion: 4, other: true });
  });

  it('when two devices\' wills say "offline", then both hold one payload, no view of their CONNECT\'s bytes; another will keeps its own', () => {
    const reads = [0, 1].map(() => Buffer.from(new Uint8Array(Buffer.from('....offline....'))));
    const wills = reads.map((read) => {
      const will = { topic: 't', payload: read.subarray(4, 11), qos: 1, retain: true };
      keepLessOfConnect({} as Client, { protocolVersion: 4, will });
      return will;
    });
    expect(wills[0]!.payload).to.equal(wills[1]!.payload);
    expect(wills[0]!.payload.toString()).to.equal('offline');
    expect(reads.some((read) => wills[0]!.payload.buffer === read.buffer)).to.equal(false);
    const other = { topic: 't', payload: Buffer.from('gone'), qos: 1, retain: true };
    const before = other.payload;
    keepLessOfConnect({} as Client, { protocolVersion: 4, will: other });
    expect(other.payload).to.equal(before);
  });
});
