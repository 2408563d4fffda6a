// The pairing URL (docs/pairing.md) and the address it names: MQTT_PUBLIC_URL, else PUBLIC_URL's
// host with the broker's port, else the host the request came to; tls=1 for mqtts, with the pin of
// the certificate the gateway serves; values
// percent-encoded; IPv6 hosts in brackets. And MQTT_PUBLIC_URL as the configuration reads it.
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { pairingAddress, pairingUrl, type KnownAddresses } from '../../src/modules/devices/pairing-url.ts';

const DEVICE = '0b0c5e9e-5d8e-4a53-9d5f-3c1f0e9b8a11';
const TOKEN = 'sgd_abc-DEF_123';
const NOTHING_SET: KnownAddresses = { mqttPublicUrl: undefined, publicUrl: undefined, mqttPort: 1883 };
const REQUEST = { hostname: 'gateway.lan', origin: 'http://gateway.lan:3000' };

/** The pairing URL for what is known and the request (null: none). */
function urlFor(known: Partial<KnownAddresses>, request: { hostname: string; origin?: string } | null = REQUEST, token = TOKEN): string {
  const address = pairingAddress({ ...NOTHING_SET, ...known }, request ?? undefined);
  expect(address, 'an address is known').to.not.equal(undefined);
  return pairingUrl(address!, DEVICE, token);
}

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  return [];
}

describe('pairing URL', () => {
  describe('when MQTT_PUBLIC_URL is set', () => {
    it('then it names that broker, whatever PUBLIC_URL and the request say; api is PUBLIC_URL', () => {
      const mqttPublicUrl = loadConfig({ MQTT_PUBLIC_URL: 'mqtt://broker.example.com:11883' }).mqttPublicUrl;
      expect(urlFor({ mqttPublicUrl, publicUrl: 'https://sms.example.com/' })).to.equal(
        `smsgw://broker.example.com:11883?v=1&device=${DEVICE}&token=${TOKEN}&api=https%3A%2F%2Fsms.example.com`,
      );
    });

    it('then mqtts:// gives tls=1 (after the token), and the usual TLS port when none is written', () => {
      const mqttPublicUrl = loadConfig({ MQTT_PUBLIC_URL: 'mqtts://Broker.Example.com' }).mqttPublicUrl;
      expect(mqttPublicUrl).to.deep.equal({ host: 'broker.example.com', port: 8883, tls: true });
      expect(urlFor({ mqttPublicUrl })).to.equal(`smsgw://broker.example.com:8883?v=1&device=${DEVICE}&token=${TOKEN}&tls=1&api=http%3A%2F%2Fgateway.lan%3A3000`);
    });

    it('then an IPv6 broker is written in brackets', () => {
      const mqttPublicUrl = loadConfig({ MQTT_PUBLIC_URL: 'mqtt://[2001:db8::1]:1883' }).mqttPublicUrl;
      expect(mqttPublicUrl).to.deep.equal({ host: '2001:db8::1', port: 1883, tls: false });
      expect(urlFor({ mqttPublicUrl }, null)).to.equal(`smsgw://[2001:db8::1]:1883?v=1&device=${DEVICE}&token=${TOKEN}`);
    });
  });

  describe('when only PUBLIC_URL is set', () => {
    it("then the broker is PUBLIC_URL's host on the broker's port, plain TCP even for https, and api is PUBLIC_URL", () => {
      expect(urlFor({ publicUrl: 'https://sms.example.com:8443', mqttPort: 1884 })).to.equal(
        `smsgw://sms.example.com:1884?v=1&device=${DEVICE}&token=${TOKEN}&api=https%3A%2F%2Fsms.example.com%3A8443`,
      );
    });

    it('then an IPv6 PUBLIC_URL gives a bracketed broker host', () => {
      expect(urlFor({ publicUrl: 'http://[fd00::5]:3000' }, null)).to.equal(
        `smsgw://[fd00::5]:1883?v=1&device=${DEVICE}&token=${TOKEN}&api=http%3A%2F%2F%5Bfd00%3A%3A5%5D%3A3000`,
      );
    });
  });

  describe('when neither is set', () => {
    it('then the broker is the host the request came to, on the broker\'s port, and api its origin', () => {
      expect(urlFor({ mqttPort: 41883 })).to.equal(`smsgw://gateway.lan:41883?v=1&device=${DEVICE}&token=${TOKEN}&api=http%3A%2F%2Fgateway.lan%3A3000`);
    });

    it('then an IPv6 request host is written in brackets', () => {
      expect(urlFor({}, { hostname: '::1', origin: 'http://[::1]:3000' })).to.equal(
        `smsgw://[::1]:1883?v=1&device=${DEVICE}&token=${TOKEN}&api=http%3A%2F%2F%5B%3A%3A1%5D%3A3000`,
      );
    });

    it('then without a request (a command given no --host) there is no address', () => {
      expect(pairingAddress(NOTHING_SET, undefined)).to.equal(undefined);
    });

    it('then a request without an origin (a command\'s --host) gives no api', () => {
      expect(urlFor({}, { hostname: '10.0.0.7' })).to.equal(`smsgw://10.0.0.7:1883?v=1&device=${DEVICE}&token=${TOKEN}`);
    });
  });

  describe('when the gateway serves TLS and knows its certificate\'s pin', () => {
    const PIN = 'tx5meGj_UUJr-ZEbGz7R-6pW0zozaB4UIwC3_abcdef';

    it('then pin follows tls=1, on the broker\'s port or MQTT_PUBLIC_URL\'s mqtts://', () => {
      expect(urlFor({ mqttPort: 8883, mqttTls: true, tlsPin: PIN }, { hostname: 'gateway.lan' })).to.equal(`smsgw://gateway.lan:8883?v=1&device=${DEVICE}&token=${TOKEN}&tls=1&pin=${PIN}`);
      const mqttPublicUrl = loadConfig({ MQTT_PUBLIC_URL: 'mqtts://broker.example.com:8883' }).mqttPublicUrl;
      expect(urlFor({ mqttPublicUrl, tlsPin: PIN }, { hostname: 'gateway.lan' })).to.contain(`&tls=1&pin=${PIN}`);
    });

    it('then a plain MQTT broker named by MQTT_PUBLIC_URL gets no pin: there is no certificate to check', () => {
      const mqttPublicUrl = loadConfig({ MQTT_PUBLIC_URL: 'mqtt://broker.example.com:1883' }).mqttPublicUrl;
      expect(urlFor({ mqttPublicUrl, mqttTls: true, tlsPin: PIN }, { hostname: 'gateway.lan' })).not.to.contain('pin=');
    });
  });

  it('then every value is percent-encoded, a space as %20 and never +', () => {
    const url = urlFor({}, REQUEST, 'a b+c&d=e/f%');
    expect(url).to.contain('&token=a%20b%2Bc%26d%3De%2Ff%25&');
    const query = new URLSearchParams(url.slice(url.indexOf('?') + 1));
    expect(query.get('token')).to.equal('a b+c&d=e/f%');
    expect(query.get('v')).to.equal('1');
    expect(query.get('device')).to.equal(DEVICE);
  });

  describe('MQTT_PUBLIC_URL as the configuration reads it', () => {
    it('then unset is none', () => {
      expect(loadConfig({}).mqttPublicUrl).to.equal(undefined);
    });

    it('then mqtt://host:port is read as host, port and plain TCP', () => {
      expect(loadConfig({ MQTT_PUBLIC_URL: 'mqtt://10.1.2.3:1999/' }).mqttPublicUrl).to.deep.equal({ host: '10.1.2.3', port: 1999, tls: false });
    });

    const refused: [string, string, RegExp][] = [
      ['another scheme', 'https://broker.example.com:443', /must start with mqtt:\/\/ or mqtts:\/\//],
      ['not a URL', 'broker.example.com:1883', /mqtt:\/\/host:port or mqtts:\/\/host:port/],
      ['a path', 'mqtt://broker.example.com:1883/mqtt', /only a scheme, a host and a port/],
      ['a query', 'mqtt://broker.example.com:1883?x=1', /only a scheme, a host and a port/],
      ['port 0', 'mqtt://broker.example.com:0', /port from 1 to 65535/],
      ['a port out of range', 'mqtt://broker.example.com:70000', /not a valid URL/],
      ['an escaped host', 'mqtt://bro%20ker:1883', /DNS name or an IP address/],
    ];
    for (const [what, value, message] of refused) {
      it(`then ${what} stops the start with a message naming MQTT_PUBLIC_URL`, () => {
        const problems = problemsOf({ MQTT_PUBLIC_URL: value });
        expect(problems).to.have.length(1);
        expect(problems[0]).to.match(/^MQTT_PUBLIC_URL: /).and.match(message);
      });
    }

    it('then a user and password are refused without being repeated', () => {
      const [problem] = problemsOf({ MQTT_PUBLIC_URL: 'mqtt://admin:hunter2secret@broker.example.com:1883' });
      expect(problem).to.match(/^MQTT_PUBLIC_URL: must not carry a user or password/);
      expect(problem).not.to.contain('hunter2secret');
    });
  });
});
