// broker/proxy-protocol.ts and TrustedProxies (src/common/client-address.ts): which client a
// connection from a load balancer is for.
import { expect } from 'chai';
import { parseProxyHeader } from '../../broker/proxy-protocol.ts';
import { TrustedProxies } from '../../src/common/client-address.ts';

const SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const CONNECT = Buffer.from([0x10, 0x0c]);

function v2(command: number, family: number, addresses: Buffer): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(addresses.length);
  return Buffer.concat([SIGNATURE, Buffer.of(0x20 | command, family), length, addresses]);
}

describe('unit: PROXY protocol header', () => {
  it('when a v2 PROXY header for TCP over IPv4 precedes MQTT, then it names the source and leaves the MQTT bytes', () => {
    const header = v2(1, 0x11, Buffer.from([198, 51, 100, 7, 10, 0, 0, 2, 0xc3, 0x50, 0x07, 0x5b]));
    const parsed = parseProxyHeader(Buffer.concat([header, CONNECT]));
    expect(parsed?.address).to.equal('198.51.100.7');
    expect(parsed?.rest.equals(CONNECT)).to.equal(true);
  });

  it('when a v2 header is for IPv6, then the source is the IPv6 address', () => {
    const source = Buffer.from('20010db8000000000000000000000042', 'hex');
    const header = v2(1, 0x21, Buffer.concat([source, Buffer.alloc(16), Buffer.alloc(4)]));
    expect(parseProxyHeader(header)?.address).to.equal('2001:db8:0:0:0:0:0:42');
  });

  it('when a v2 header is LOCAL (the balancer\'s own health check), then there is no client address', () => {
    expect(parseProxyHeader(v2(0, 0x00, Buffer.alloc(0)))).to.deep.include({ address: undefined });
  });

  it('when a v1 line precedes MQTT, then it names the source', () => {
    const parsed = parseProxyHeader(Buffer.concat([Buffer.from('PROXY TCP4 203.0.113.9 10.0.0.2 51000 1883\r\n'), CONNECT]));
    expect(parsed?.address).to.equal('203.0.113.9');
    expect(parsed?.rest.equals(CONNECT)).to.equal(true);
  });

  it('when only part of a header has arrived, then more is awaited', () => {
    expect(parseProxyHeader(SIGNATURE.subarray(0, 5))).to.equal(undefined);
    expect(parseProxyHeader(Buffer.from('PROXY TCP4 203.0'))).to.equal(undefined);
  });

  it('when the connection starts with MQTT itself, or a v1 line never ends, then it is refused', () => {
    expect(() => parseProxyHeader(CONNECT)).to.throw('does not start with a PROXY header');
    expect(() => parseProxyHeader(Buffer.from(`PROXY TCP4 ${'1'.repeat(120)}`))).to.throw('too long');
  });
});

describe('unit: trusted proxies', () => {
  const proxies = TrustedProxies.parse(['10.0.0.0/8', '192.0.2.1']);

  it('when the peer is a trusted proxy, then the nearest forwarded address that is not a proxy is the client', () => {
    expect(proxies.clientOf('10.1.2.3', '203.0.113.5, 10.9.9.9')).to.equal('203.0.113.5');
    expect(proxies.clientOf('::ffff:192.0.2.1', '198.51.100.1')).to.equal('198.51.100.1');
  });

  it('when the peer is not trusted, then X-Forwarded-For is ignored', () => {
    expect(proxies.clientOf('203.0.113.5', '198.51.100.1')).to.equal('203.0.113.5');
    expect(TrustedProxies.none().clientOf('10.1.2.3', '198.51.100.1')).to.equal('10.1.2.3');
  });

  it('when a trusted proxy forwards a malformed header, then the proxy itself is counted, never a guess', () => {
    expect(proxies.clientOf('10.1.2.3', 'not-an-address')).to.equal('10.1.2.3');
  });

  it('when an entry is neither an address nor a range, then parsing refuses it', () => {
    expect(() => TrustedProxies.parse(['10.0.0.0/33'])).to.throw('neither an address nor a CIDR range');
  });
});
