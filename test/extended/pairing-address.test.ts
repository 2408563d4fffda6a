// The address POST /devices names (broker and pairing_url): MQTT_PUBLIC_URL when set, else
// PUBLIC_URL's host on the broker's port, else the host the request came to (a trusted load
// balancer's X-Forwarded-Host, nobody else's). A Host that is no host, with nothing configured,
// is a 400 that registers nothing.
import { expect } from 'chai';
import { request } from 'node:http';
import { TrustedProxies } from '../../src/common/client-address.ts';
import { loadConfig } from '../../src/config.ts';
import type { GatewayFixture } from '../support/use-gateway.ts';
import { useGateway } from '../support/use-gateway.ts';

interface Answer {
  status: number;
  body: any;
}

/** POST /devices with headers fetch would not send as given (Host). */
function register(fx: GatewayFixture, headers: Record<string, string> = {}): Promise<Answer> {
  const body = JSON.stringify({ name: 'paired' });
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: '127.0.0.1',
        port: fx.gateway.httpPort,
        method: 'POST',
        path: '/api/ext/v1/devices',
        headers: { authorization: `Bearer ${fx.tenant.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/** The pairing URL's address and parameters, read back. */
function readPairing(url: string): { hostPort: string; query: URLSearchParams } {
  const match = /^smsgw:\/\/([^?]+)\?(.*)$/.exec(url);
  expect(match, url).to.not.equal(null);
  return { hostPort: match![1]!, query: new URLSearchParams(match![2]!) };
}

async function registered(fx: GatewayFixture, headers: Record<string, string> = {}): Promise<Answer> {
  const reply = await register(fx, headers);
  expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
  const { hostPort, query } = readPairing(reply.body.pairing_url);
  expect(query.get('v')).to.equal('1');
  expect(query.get('device')).to.equal(reply.body.device.id);
  expect(query.get('token')).to.equal(reply.body.credentials.password);
  expect(hostPort, 'the pairing URL names the broker the answer names').to.equal(reply.body.broker.url.replace(/^mqtts?:\/\//, ''));
  return reply;
}

describe('POST /api/ext/v1/devices: the address phones are given', () => {
  describe('when MQTT_PUBLIC_URL is mqtts:// and PUBLIC_URL is set', () => {
    const fx = useGateway({
      config: { mqttPublicUrl: loadConfig({ MQTT_PUBLIC_URL: 'mqtts://mqtt.example.com:8884' }).mqttPublicUrl, publicUrl: 'https://sms.example.com' },
    });

    it('then broker and pairing_url name MQTT_PUBLIC_URL with tls, and api is PUBLIC_URL; mqtt_port stays the listening port', async () => {
      const reply = await registered(fx, { host: 'ignored.example:1234' });
      expect(reply.body.broker).to.deep.equal({
        mqtt_port: fx.gateway.mqttPort,
        websocket_path: '/mqtt',
        host: 'mqtt.example.com',
        port: 8884,
        tls: true,
        url: 'mqtts://mqtt.example.com:8884',
      });
      const { query } = readPairing(reply.body.pairing_url);
      expect(query.get('tls')).to.equal('1');
      expect(query.get('api')).to.equal('https://sms.example.com');
    });
  });

  describe('when only PUBLIC_URL is set', () => {
    const fx = useGateway({ config: { publicUrl: 'https://sms.example.com:8443/' } });

    it("then the broker is PUBLIC_URL's host on the broker's port, without TLS, and api is PUBLIC_URL", async () => {
      const reply = await registered(fx, { host: 'ignored.example:1234' });
      const port = fx.gateway.mqttPort;
      expect(reply.body.broker).to.include({ host: 'sms.example.com', port, tls: false, url: `mqtt://sms.example.com:${port}` });
      const { query } = readPairing(reply.body.pairing_url);
      expect(query.has('tls')).to.equal(false);
      expect(query.get('api')).to.equal('https://sms.example.com:8443');
    });
  });

  describe('when neither is set', () => {
    const fx = useGateway();

    it('then the broker is the host the request came to, on the broker\'s port, and api its origin', async () => {
      const reply = await registered(fx, { host: 'gateway.lan:8080' });
      const port = fx.gateway.mqttPort;
      expect(reply.body.broker).to.include({ host: 'gateway.lan', port, tls: false });
      expect(reply.body.pairing_url.startsWith(`smsgw://gateway.lan:${port}?`)).to.equal(true);
      expect(readPairing(reply.body.pairing_url).query.get('api')).to.equal('http://gateway.lan:8080');
    });

    it('then an IPv6 request host is written in brackets', async () => {
      const reply = await registered(fx, { host: '[fd00::17]:3000' });
      expect(reply.body.broker).to.include({ host: 'fd00::17', url: `mqtt://[fd00::17]:${fx.gateway.mqttPort}` });
      expect(reply.body.pairing_url.startsWith(`smsgw://[fd00::17]:${fx.gateway.mqttPort}?`)).to.equal(true);
      expect(readPairing(reply.body.pairing_url).query.get('api')).to.equal('http://[fd00::17]:3000');
    });

    it('then X-Forwarded-Host from a client that is no trusted proxy is ignored', async () => {
      const reply = await registered(fx, { host: 'gateway.lan:8080', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' });
      expect(reply.body.broker.host).to.equal('gateway.lan');
      expect(readPairing(reply.body.pairing_url).query.get('api')).to.equal('http://gateway.lan:8080');
    });

    for (const host of ['bad host', 'user@gateway.lan', 'gateway.lan/path', 'gateway.lan:99999']) {
      it(`then a Host of ${JSON.stringify(host)} is a 400 naming Host, and no device is registered`, async () => {
        const reply = await register(fx, { host });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(400);
        expect(reply.body.error.code).to.equal('validation_failed');
        expect(reply.body.error.details[0]).to.include({ field: 'Host', in: 'header' });
        expect((await fx.tenant.api.get('/devices')).body.data).to.deep.equal([]);
      });
    }
  });

  describe('when the request comes from a trusted load balancer', () => {
    const fx = useGateway({ config: { trustedProxies: TrustedProxies.parse(['127.0.0.1']) } });

    it('then its X-Forwarded-Host and X-Forwarded-Proto name the address', async () => {
      const reply = await registered(fx, { host: '10.0.0.2:3000', 'x-forwarded-host': 'sms.example.org, 10.0.0.2', 'x-forwarded-proto': 'https' });
      expect(reply.body.broker.host).to.equal('sms.example.org');
      expect(readPairing(reply.body.pairing_url).query.get('api')).to.equal('https://sms.example.org');
    });
  });
});
