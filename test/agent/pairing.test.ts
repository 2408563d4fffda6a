// The pairing URL as the agent reads it: every part checked, the broker address and TLS taken
// from it, a token never repeated in an error.
import { expect } from 'chai';
import { formatPairingUrl, parsePairingUrl } from '../../agent/src/pairing.ts';

const DEVICE = '6f1c2d3e-4a5b-4c6d-8e7f-0123456789ab';

describe('device agent: the pairing URL', () => {
  it('when it names a host, port, device and token, then the agent connects there over plain MQTT', () => {
    const pairing = parsePairingUrl(`smsgw://sms.example.com:1883?v=1&device=${DEVICE}&token=sgd_secret`);
    expect(pairing).to.deep.equal({ brokerUrl: 'mqtt://sms.example.com:1883', deviceId: DEVICE, token: 'sgd_secret', apiUrl: undefined });
  });

  it('when tls=1 and an api base are given, then the broker is mqtts:// and recordings go to the api', () => {
    const pairing = parsePairingUrl(`smsgw://sms.example.com:8883?v=1&device=${DEVICE}&token=a%2Bb%26c&tls=1&api=https%3A%2F%2Fsms.example.com%2F`);
    expect(pairing).to.deep.equal({ brokerUrl: 'mqtts://sms.example.com:8883', deviceId: DEVICE, token: 'a+b&c', apiUrl: 'https://sms.example.com' });
  });

  it('when tls=1 and a pin are given, then the pin is kept for the certificate check, and formatPairingUrl writes it back', () => {
    const pin = 'tx5meGj_UUJr-ZEbGz7R-6pW0zozaB4UIwC3_abcdef';
    const url = formatPairingUrl({ host: 'sms.example.com', port: 8883, deviceId: DEVICE, token: 't', tls: true, pin });
    expect(url).to.contain(`&tls=1&pin=${pin}`);
    expect(parsePairingUrl(url)).to.include({ brokerUrl: 'mqtts://sms.example.com:8883', pin });
  });

  it('when the host is an IPv6 address, then it stays in brackets', () => {
    const url = formatPairingUrl({ host: '2001:db8::5', port: 1883, deviceId: DEVICE, token: 't' });
    expect(url).to.match(/^smsgw:\/\/\[2001:db8::5\]:1883\?/);
    expect(parsePairingUrl(url).brokerUrl).to.equal('mqtt://[2001:db8::5]:1883');
  });

  it('when the port is left out, then the usual MQTT port is used (8883 with TLS)', () => {
    expect(parsePairingUrl(`smsgw://gw.example?device=${DEVICE}&token=t`).brokerUrl).to.equal('mqtt://gw.example:1883');
    expect(parsePairingUrl(`smsgw://gw.example?device=${DEVICE}&token=t&tls=1`).brokerUrl).to.equal('mqtts://gw.example:8883');
  });

  it('when a device id is in upper case, then the agent uses it in lower case, as the gateway routes on', () => {
    expect(parsePairingUrl(`smsgw://gw.example:1883?device=${DEVICE.toUpperCase()}&token=t`).deviceId).to.equal(DEVICE);
  });

  it('when a parameter is unknown, then it is ignored', () => {
    expect(parsePairingUrl(`smsgw://gw.example:1883?v=1&device=${DEVICE}&token=t&colour=blue`).token).to.equal('t');
  });

  const refused: [string, string, RegExp][] = [
    ['not a URL', 'hello', /not a URL/],
    ['another scheme', `mqtt://gw.example:1883?device=${DEVICE}&token=sgd_secret`, /must start with smsgw:\/\//],
    ['a later version', `smsgw://gw.example:1883?v=2&device=${DEVICE}&token=sgd_secret`, /version 2.*update the agent/],
    ['no device', 'smsgw://gw.example:1883?token=sgd_secret', /no device id/],
    ['a device that is not a UUID', 'smsgw://gw.example:1883?device=phone-1&token=sgd_secret', /no device id/],
    ['no token', `smsgw://gw.example:1883?device=${DEVICE}`, /no token/],
    ['tls=yes', `smsgw://gw.example:1883?device=${DEVICE}&token=sgd_secret&tls=yes`, /tls .* 0 or 1/],
    ['a pin without tls=1', `smsgw://gw.example:1883?device=${DEVICE}&token=sgd_secret&pin=tx5meGj_UUJr-ZEbGz7R-6pW0zozaB4UIwC3_abcdef`, /pin but not tls=1/],
    ['a pin that is no SHA-256 in base64url', `smsgw://gw.example:8883?device=${DEVICE}&token=sgd_secret&tls=1&pin=abc%2Bdef`, /not a key pin/],
    ['an api that is not http', `smsgw://gw.example:1883?device=${DEVICE}&token=sgd_secret&api=ftp%3A%2F%2Fx`, /http:\/\/ or https:\/\//],
  ];
  for (const [what, url, message] of refused) {
    it(`when it has ${what}, then it is refused saying so, without the token`, () => {
      expect(() => parsePairingUrl(url)).to.throw(message);
      try {
        parsePairingUrl(url);
      } catch (error) {
        expect((error as Error).message).not.to.contain('sgd_secret');
      }
    });
  }
});
