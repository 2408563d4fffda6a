// A gateway given TLS_CERT and TLS_KEY serves its HTTP port as HTTPS (the API, the panel, /docs and
// MQTT over WSS at /mqtt) and MQTT over TLS on MQTTS_PORT, to clients that trust the certificate:
// Node's fetch, Debian's mosquitto_pub and the mqtt package. Phones are paired to MQTTS.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import mqtt from 'mqtt';
import { Agent, fetch } from 'undici';
import { useGateway } from '../support/use-gateway.ts';
import { certificateDirectory, makeCertificate, type TestCertificate } from './tls-support.ts';
import { eventually } from '../support/eventually.ts';

describe('TLS: the gateway serves HTTPS, MQTTS and WSS with TLS_CERT and TLS_KEY', () => {
  const files = certificateDirectory();
  let certificate: TestCertificate;
  const fx = useGateway({
    config: () => {
      certificate = makeCertificate(files.directory, 'gateway');
      return { tls: { certFile: certificate.certFile, keyFile: certificate.keyFile, mqttsPort: 0 } };
    },
  });
  after(() => files.remove());

  /** An HTTPS client that trusts the test's certificate, and only it. */
  const trusting = () => new Agent({ connect: { ca: certificate.pem } });
  const httpsUrl = (path: string) => `https://127.0.0.1:${fx.gateway.httpPort}${path}`;

  async function registeredDevice() {
    const { device, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, 'tls phone');
    return { id: device.id, token };
  }

  it('when a client trusting the certificate asks the API over HTTPS, then it is answered', async () => {
    const dispatcher = trusting();
    try {
      const ready = await fetch(httpsUrl('/readyz'), { dispatcher });
      expect(ready.status).to.equal(200);
      const devices = await fetch(httpsUrl('/api/ext/v1/devices'), { dispatcher, headers: { authorization: `Bearer ${fx.tenant.key}` } });
      expect(devices.status).to.equal(200);
      const docs = await fetch(httpsUrl('/docs'), { dispatcher });
      expect(docs.status).to.equal(200);
    } finally {
      await dispatcher.close();
    }
  });

  it('when a client does not trust the certificate, then its HTTPS request fails; and plain HTTP on the port gets no answer', async () => {
    const strict = new Agent();
    try {
      const untrusted = await fetch(httpsUrl('/readyz'), { dispatcher: strict }).then(() => 'answered', (error: Error) => String((error.cause as Error | undefined)?.message ?? error.message));
      expect(untrusted).to.match(/self[- ]signed|unable to verify|certificate/i);
    } finally {
      await strict.close();
    }
    const plain = await fetch(`http://127.0.0.1:${fx.gateway.httpPort}/readyz`).then((response) => response.status, () => 'failed');
    expect(plain).to.equal('failed');
  });

  it('when mosquitto_pub publishes a heartbeat over MQTTS with the certificate as its CA, then the gateway records it', async () => {
    const device = await registeredDevice();
    const heartbeat = JSON.stringify({ battery_level: 50, is_charging: false, sim_cards: [] });
    const args = [
      '--cafile', certificate.certFile, '-h', '127.0.0.1', '-p', String(fx.gateway.mqttsPort), '-V', 'mqttv311',
      '-i', device.id, '-u', device.id, '-P', device.token,
      '-t', `sms-gateway/v1/devices/${device.id}/heartbeat`, '-q', '1', '-r', '-m', heartbeat,
    ];
    const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile('mosquitto_pub', args, { timeout: 10_000 }, (error, _stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr }));
    });
    expect(run.code, run.stderr).to.equal(0);
    await eventually('the heartbeat recorded', async () => (await fx.gateway.services.devices.get(fx.tenant.accountId, device.id)).battery_level === 50);
  });

  it('when the mqtt package connects over WSS to /mqtt with the certificate as its CA, then the device is accepted', async () => {
    const device = await registeredDevice();
    const client = mqtt.connect(`wss://127.0.0.1:${fx.gateway.httpPort}/mqtt`, {
      ca: certificate.pem,
      clientId: device.id,
      username: device.id,
      password: device.token,
      protocolVersion: 4,
      reconnectPeriod: 0,
      connectTimeout: 5_000,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        client.once('connect', () => resolve());
        client.once('error', reject);
      });
      await eventually('the device online', () => fx.gateway.services.devices.isOnline(device.id));
    } finally {
      await client.endAsync(true);
    }
  });

  it('when a device is registered through the API, then its pairing URL names the MQTTS port with tls=1', async () => {
    const dispatcher = trusting();
    try {
      const response = await fetch(httpsUrl('/api/ext/v1/devices'), {
        dispatcher,
        method: 'POST',
        headers: { authorization: `Bearer ${fx.tenant.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'paired over tls' }),
      });
      expect(response.status).to.equal(201);
      const body = (await response.json()) as { broker: { port: number; tls: boolean; url: string; mqtt_port: number }; pairing_url: string };
      expect(body.broker).to.include({ port: fx.gateway.mqttsPort, tls: true, mqtt_port: fx.gateway.mqttsPort });
      expect(body.broker.url).to.equal(`mqtts://127.0.0.1:${fx.gateway.mqttsPort}`);
      expect(body.pairing_url).to.match(new RegExp(`^smsgw://127\\.0\\.0\\.1:${fx.gateway.mqttsPort}\\?.*&tls=1(&|$)`));
    } finally {
      await dispatcher.close();
    }
  });

  it('when TLS is on and MQTT_PORT is not "off", then plain MQTT stays open beside MQTTS', async () => {
    const device = await registeredDevice();
    const raw = await fx.clients.connect({ clientId: device.id, username: device.id, password: device.token });
    expect(raw.closed).to.equal(false);
    expect(fx.gateway.mqttPort).to.not.equal(fx.gateway.mqttsPort);
  });
});

describe('TLS: MQTT_PORT=off leaves MQTTS as the only MQTT over TCP', () => {
  const files = certificateDirectory();
  let certificate: TestCertificate;
  const fx = useGateway({
    config: () => {
      certificate = makeCertificate(files.directory, 'gateway');
      return { plainMqtt: false, tls: { certFile: certificate.certFile, keyFile: certificate.keyFile, mqttsPort: 0 } };
    },
    tenant: 'none',
  });
  after(() => files.remove());

  it('when the gateway runs, then it has no plain MQTT port, MQTTS listens, and /readyz is 200', async () => {
    expect(() => fx.gateway.mqttPort).to.throw(/MQTT_PORT=off/);
    expect(fx.gateway.mqttsPort).to.be.above(0);
    const dispatcher = new Agent({ connect: { ca: certificate.pem } });
    try {
      expect((await fetch(`https://127.0.0.1:${fx.gateway.httpPort}/readyz`, { dispatcher })).status).to.equal(200);
    } finally {
      await dispatcher.close();
    }
  });
});
