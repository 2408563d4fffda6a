// broker/parser-buffer.ts: mqtt-packet's parser reads the same packets from a ParserBuffer as
// from its own BufferListStream, however the bytes are cut into chunks.
import { expect } from 'chai';
import { createRequire } from 'node:module';
import { ParserBuffer } from '../../broker/parser-buffer.ts';

const require = createRequire(import.meta.url);
const mqtt = require('mqtt-packet') as {
  parser(): { _list: unknown; on(event: string, listener: (value: unknown) => void): void; parse(chunk: Buffer): number };
  generate(packet: object): Buffer;
};

const PACKETS = [
  { cmd: 'connect', protocolId: 'MQTT', protocolVersion: 4, clean: false, clientId: 'c2a1f0e4-1d3b-4c1e-9a55-0b1d2c3e4f50', keepalive: 60, username: 'c2a1f0e4-1d3b-4c1e-9a55-0b1d2c3e4f50', password: Buffer.from('sgd_token'), will: { topic: 'sms-gateway/v1/devices/x/presence', payload: Buffer.from('offline'), qos: 1, retain: true } },
  { cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: 'sms-gateway/v1/devices/x/tasks', qos: 1 }, { topic: 'sms-gateway/v1/devices/x/settings', qos: 1 }] },
  { cmd: 'publish', topic: 'sms-gateway/v1/devices/x/heartbeat', payload: Buffer.from(JSON.stringify({ battery: 80, text: 'é'.repeat(300) })), qos: 1, messageId: 2, retain: true },
  { cmd: 'publish', topic: 'sms-gateway/v1/devices/x/status', payload: Buffer.alloc(70_000, 7), qos: 2, messageId: 3, retain: false },
  { cmd: 'pingreq' },
  { cmd: 'puback', messageId: 4 },
];

function parseAll(bytes: Buffer, cuts: number[], withParserBuffer: boolean): unknown[] {
  const parser = mqtt.parser();
  if (withParserBuffer) parser._list = new ParserBuffer();
  const packets: unknown[] = [];
  parser.on('packet', (packet) => packets.push(packet));
  parser.on('error', (error) => packets.push({ error: String(error) }));
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    parser.parse(bytes.subarray(start, cut));
    start = cut;
  }
  return packets;
}

describe('unit: the bytes an MQTT parser holds between packets', () => {
  it('when packets arrive cut at random places, then the parser reads the same packets as with its BufferListStream', () => {
    const bytes = Buffer.concat(PACKETS.map((packet) => mqtt.generate(packet)));
    let seed = 3;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let round = 0; round < 200; round++) {
      const cuts = Array.from({ length: Math.floor(next() * 12) }, () => Math.floor(next() * bytes.length)).sort((a, b) => a - b);
      expect(parseAll(bytes, cuts, true), `cut at ${cuts.join(',')}`).to.deep.equal(parseAll(bytes, cuts, false));
    }
    expect(parseAll(bytes, [], true)).to.have.length(PACKETS.length);
  });

  it('when a packet has been read whole, then nothing of it is held', () => {
    const buffer = new ParserBuffer().append(Buffer.from([1, 2, 3])).append(Buffer.from([4, 5]));
    expect(buffer.slice(1, 4)).to.deep.equal(Buffer.from([2, 3, 4]));
    expect(buffer.readUInt16BE(2)).to.equal(0x0304);
    buffer.consume(5);
    expect(buffer.length).to.equal(0);
  });
});
