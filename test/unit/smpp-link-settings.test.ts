// The check of an SMPP link's settings the API answers with, field by field; the defaults; the
// throughput's bucket and the reconnection backoff.
import { expect } from 'chai';
import { ManualClock } from '../../src/common/clock.ts';
import { Backoff } from '../../src/modules/upstreams/links/smpp/backoff.ts';
import { checkSmppLinkSettings, withDefaults } from '../../src/modules/upstreams/links/smpp/settings.ts';
import { TokenBucket } from '../../src/modules/upstreams/links/smpp/token-bucket.ts';

const GOOD = { host: 'smsc.example.net', port: 2775, tls: false, systemId: 'gateway', password: 'secret' };

describe('SMPP link: settings', () => {
  it('takes the least settings and fills in the defaults', () => {
    expect(checkSmppLinkSettings(GOOD)).to.deep.equal([]);
    expect(withDefaults(GOOD)).to.deep.equal({
      ...GOOD,
      systemType: '',
      bindMode: 'transceiver',
      sourceAddr: '',
      destTon: 1,
      destNpi: 1,
      throughputPerSecond: 50,
      windowSize: 10,
      enquireLinkSeconds: 30,
      responseTimeoutMs: 10_000,
    });
    const full = { ...GOOD, tls: true, ca: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n', systemType: 'VMA', bindMode: 'transmitter_receiver', sourceAddr: 'MyShop', sourceTon: 5, sourceNpi: 0, destTon: 1, destNpi: 1, throughputPerSecond: 100, windowSize: 20, enquireLinkSeconds: 15, responseTimeoutMs: 5_000 };
    expect(checkSmppLinkSettings(full)).to.deep.equal([]);
  });

  it('names every field that is wrong', () => {
    const problems = checkSmppLinkSettings({
      host: 'smpp://smsc',
      port: 70_000,
      tls: 'yes',
      ca: 'not a certificate',
      systemId: 'a-system-id-far-too-long',
      password: 'far too long',
      systemType: 'x\u0000',
      bindMode: 'receiver',
      sourceAddr: 'A very long sender',
      sourceTon: 9,
      destNpi: 2,
      throughputPerSecond: 0,
      windowSize: 1.5,
      enquireLinkSeconds: -1,
      responseTimeoutMs: 10,
      colour: 'blue',
    });
    const fields = problems.map((problem) => problem.split(':')[0]);
    expect(fields).to.have.members(['colour', 'host', 'port', 'tls', 'ca', 'systemId', 'password', 'systemType', 'bindMode', 'sourceAddr', 'sourceTon', 'destNpi', 'sourceNpi', 'throughputPerSecond', 'windowSize', 'enquireLinkSeconds', 'responseTimeoutMs']);
    expect(checkSmppLinkSettings({})).to.deep.equal([
      'host: is required: the SMSC\'s host name or address',
      'port: is required: a whole number from 1 to 65535',
      'tls: is required: true or false',
      'systemId: is required',
      'password: is required',
    ]);
    expect(checkSmppLinkSettings('nope')).to.deep.equal(['settings: must be an object']);
    const snake = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    expect(checkSmppLinkSettings({ ...GOOD, systemId: '', windowSize: 0 }, snake)).to.deep.equal(['system_id: must have 1 to 15 characters', 'window_size: must be a whole number from 1 to 1000']);
    expect(checkSmppLinkSettings({ ...GOOD, sourceAddr: '+447700900123' })).to.deep.equal([]);
    expect(checkSmppLinkSettings({ ...GOOD, ca: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----' })).to.deep.equal(['ca: is only used with tls: true']);
  });

  it('lets a tenth of a second\'s submissions through at once, then one every 1/rate of the clock', () => {
    const clock = new ManualClock(0);
    const bucket = new TokenBucket(50, clock);
    const taken = () => Array.from({ length: 100 }, () => bucket.take()).filter(Boolean).length;
    expect(taken()).to.equal(5);
    expect(bucket.msUntilToken()).to.equal(20);
    clock.advance(20);
    expect(taken()).to.equal(1);
    clock.advance(10_000);
    expect(taken(), 'the bucket holds no more than its capacity').to.equal(5);
    clock.advance(-5_000);
    expect(taken(), 'a clock set back fills nothing').to.equal(0);
  });

  it('waits 1 s, doubling up to 60 s, each wait between half and all of it, and starts again after a bind', () => {
    const highest = new Backoff(() => 0.999_999);
    expect(Array.from({ length: 9 }, () => highest.next())).to.deep.equal([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    highest.reset();
    expect(highest.next()).to.equal(1_000);
    const lowest = new Backoff(() => 0);
    expect([lowest.next(), lowest.next()]).to.deep.equal([500, 1_000]);
  });
});
