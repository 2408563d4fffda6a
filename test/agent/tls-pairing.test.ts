// A gateway serving TLS with a certificate no public CA signed (self-signed, or a private CA's)
// pairs a phone with its pairing URL alone: the URL carries the pin of the certificate's key (or
// its CA's), the agent trusts the gateway by it and delivers, a renewal that keeps the key (or the
// CA) keeps it connected, and an agent that cannot trust the certificate says why once, however
// often it tries again. --ca is kept in the state directory for a start without flags, and one
// that holds no certificate is refused.
import { expect } from 'chai';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { DeviceAgent } from '../../agent/src/agent.ts';
import type { AgentLogger } from '../../agent/src/log.ts';
import { parsePairingUrl } from '../../agent/src/pairing.ts';
import { givenDevices, pairingFlags } from '../../src/cli/simulate-devices.ts';
import { Fleet } from '../../src/simulator/fleet.ts';
import { liftLimits, nextEvent } from '../support/devices.ts';
import { useGateway } from '../support/use-gateway.ts';
import { certificateDirectory, servedSerial } from '../tls/tls-support.ts';
import { printed, startAgentProcess, stopAgentProcess } from './support/agent-process.ts';
import { certificateAuthority, issuedBy, opensslPin, selfSigned, type MadeCertificate } from './support/certificates.ts';
import { ScriptedRadio } from './support/scripted-radio.ts';

const PHONE = '+79161234567';

/** An agent's log lines, as the command would print them. */
function recordingLogger(): AgentLogger & { lines: string[] } {
  const lines: string[] = [];
  const line = (level: string) => (message: string, fields: Record<string, unknown> = {}) => lines.push(`${level} ${message} ${JSON.stringify(fields)}`);
  return { lines, info: line('info'), warn: line('warn'), error: line('error') };
}

/** The gateway of a describe, its certificate files (rewritten by renewals), and the API over HTTPS trusting what it serves. */
function tlsGateway(first: (directory: string) => MadeCertificate) {
  const files = certificateDirectory();
  const state = { certificate: undefined as unknown as MadeCertificate };
  const fx = useGateway({
    config: () => {
      state.certificate = first(files.directory);
      return { tls: { certFile: state.certificate.certFile, keyFile: state.certificate.keyFile, mqttsPort: 0 } };
    },
  });
  after(() => files.remove());
  const agents: DeviceAgent[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.allSettled(agents.splice(0).map((agent) => agent.stop()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    // The test's own client trusts the certificate as an operator's would; the agent is given no CA.
    const dispatcher = new Agent({ connect: { ca: state.certificate.pem } });
    try {
      const response = await fetch(`https://127.0.0.1:${fx.gateway.httpPort}/api/ext/v1${path}`, {
        dispatcher,
        method,
        headers: { authorization: `Bearer ${fx.tenant.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: await response.json() };
    } finally {
      await dispatcher.close();
    }
  }

  return {
    fx,
    files,
    state,
    api,
    /** Registers a device through the API and answers its pairing URL. */
    async pairingUrl(name = 'tls phone'): Promise<string> {
      const registered = await api('POST', '/devices', { name });
      expect(registered.status).to.equal(201);
      await liftLimits(fx.gateway, fx.tenant, registered.body.device.id);
      return registered.body.pairing_url as string;
    },
    /** An agent in this process, paired with `url` and nothing else; started (not awaited: it may never connect). */
    agent(url: string, logger?: AgentLogger): DeviceAgent {
      const pairing = parsePairingUrl(url);
      const agent = new DeviceAgent({
        brokerUrl: pairing.brokerUrl,
        deviceId: pairing.deviceId,
        token: pairing.token,
        ...(pairing.pin ? { pin: pairing.pin } : {}),
        radio: new ScriptedRadio(),
        reconnectPeriodMs: 20,
        maxReconnectPeriodMs: 40,
        ...(logger ? { logger } : {}),
      });
      agents.push(agent);
      agent.start().catch(() => {});
      return agent;
    },
    stateDir(): string {
      const dir = mkdtempSync(join(tmpdir(), 'agent-tls-state-'));
      dirs.push(dir);
      return dir;
    },
    /** Serves `certificate` from now on, as a renewal and its SIGHUP do. */
    renew(certificate: MadeCertificate): void {
      state.certificate = certificate;
      expect(fx.gateway.certificates.reload('SIGHUP')).to.equal('applied');
    },
  };
}

describe('device agent: TLS from the pairing URL alone, with a self-signed certificate', () => {
  const gateway = tlsGateway((directory) => selfSigned(directory, 'gateway'));
  const { fx } = gateway;

  it('when TLS is on, then the pairing URL carries tls=1 and the pin of the certificate\'s key, as openssl works it out', async () => {
    const url = await gateway.pairingUrl();
    expect(url).to.match(/[?&]tls=1(&|$)/);
    expect(parsePairingUrl(url).pin).to.equal(opensslPin(gateway.state.certificate.certFile));
  });

  it('when sms-gateway-agent is started with the pairing URL alone (no --ca), then it connects over MQTTS and delivers an SMS', async function () {
    this.timeout(30_000);
    const url = await gateway.pairingUrl();
    const run = startAgentProcess(['--backend', 'simulate', '--state-dir', gateway.stateDir()], { SMS_GATEWAY_AGENT_PAIRING: url });
    try {
      await printed(run, /connected to the gateway broker=mqtts:\/\//, 45_000);
      const sent = await gateway.api('POST', '/sms', { phone: PHONE, message: 'over a pinned certificate' });
      expect(sent.status).to.equal(201);
      await printed(run, new RegExp(`reported sms=${sent.body.id} status=delivered`));
      expect((await gateway.api('GET', `/sms/${sent.body.id}`)).body.status).to.equal('delivered');
    } finally {
      expect(await stopAgentProcess(run)).to.equal(0);
    }
  });

  it('when the simulator is given the pairing URL (npm run cli -- simulate --pairing), then it trusts the gateway by the pin too', async () => {
    const url = await gateway.pairingUrl();
    const fleet = new Fleet({ count: 0, given: givenDevices(pairingFlags([url]), undefined, undefined), apiUrl: `https://127.0.0.1:${fx.gateway.httpPort}`, brokerUrl: 'mqtt://127.0.0.1:1' });
    fx.onCleanup(() => fleet.stop());
    // Resolves once every given device is connected and announced.
    await fleet.start();
    expect(fleet.devices.map((device) => device.agent.id)).to.deep.equal([parsePairingUrl(url).deviceId]);
  });

  it('when the pin is altered, then the agent never connects and says "pin mismatch" once over many attempts, with no line per attempt', async () => {
    const url = await gateway.pairingUrl();
    const pin = parsePairingUrl(url).pin!;
    const altered = url.replace(`pin=${pin}`, `pin=${pin[0] === 'A' ? 'B' : 'A'}${pin.slice(1)}`);
    const logger = recordingLogger();
    const agent = gateway.agent(altered, logger);
    await nextEvent(agent, 'reconnecting', () => agent.session.reconnects >= 6);
    expect(agent.session.connected).to.equal(false);
    expect(fx.gateway.services.devices.isOnline(parsePairingUrl(url).deviceId)).to.equal(false);
    expect(logger.lines, 'one line for the first failure, none for the 6 attempts after it').to.have.length(1);
    expect(logger.lines[0]).to.match(/^error the gateway's TLS certificate is not trusted: no certificate the gateway showed has the key the pairing URL pins/);
    expect(logger.lines[0]).to.contain('"reason":"pin mismatch"');
    expect(logger.lines[0]).not.to.contain(parsePairingUrl(url).token);
  });

  it('when the certificate is renewed with the same key, then a paired agent reconnects to it; a renewal to another name, then to another key, is each told once, and the agent connects again when the certificate is right', async function () {
    this.timeout(30_000);
    const url = await gateway.pairingUrl();
    const logger = recordingLogger();
    const agent = gateway.agent(url, logger);
    await nextEvent(agent, 'connected');
    const { keyFile, certFile } = gateway.state.certificate;
    const before = await servedSerial(fx.gateway.mqttsPort);

    gateway.renew(selfSigned(gateway.files.directory, 'gateway', { keyFile }));
    expect(await servedSerial(fx.gateway.mqttsPort)).not.to.equal(before);
    let reconnected = nextEvent(agent, 'connected');
    agent.session.drop();
    await reconnected;
    expect(parsePairingUrl(await gateway.pairingUrl()).pin, 'new pairing URLs carry the same pin').to.equal(parsePairingUrl(url).pin);

    // The same key under a name the pairing URL's host is not, then another key: each reason once.
    gateway.renew(selfSigned(gateway.files.directory, 'gateway', { keyFile, names: 'DNS:elsewhere.example' }));
    const attempts = () => agent.session.reconnects;
    let from = attempts();
    agent.session.drop();
    await nextEvent(agent, 'reconnecting', () => attempts() >= from + 4);
    const originalKey = join(gateway.files.directory, 'original.key');
    copyFileSync(keyFile, originalKey);
    gateway.renew(selfSigned(gateway.files.directory, 'gateway'));
    from = attempts();
    await nextEvent(agent, 'reconnecting', () => attempts() >= from + 4);
    reconnected = nextEvent(agent, 'connected');
    copyFileSync(originalKey, keyFile);
    gateway.renew(selfSigned(gateway.files.directory, 'gateway', { keyFile }));
    await reconnected;
    expect(gateway.state.certificate.certFile).to.equal(certFile);

    const reasons = logger.lines.map((line) => /"reason":"([^"]+)"/.exec(line)?.[1] ?? line.split(' ').slice(0, 9).join(' '));
    expect(reasons).to.deep.equal([
      'warn the connection to the gateway was lost; reconnecting',
      'warn the connection to the gateway was lost; reconnecting',
      'name mismatch',
      'pin mismatch',
    ]);
  });

  it('when the agent was started with --ca and a pairing URL without a pin, then a start without flags (a boot script) still trusts that CA', async function () {
    this.timeout(40_000);
    const url = (await gateway.pairingUrl()).replace(/&pin=[^&]*/, '');
    expect(parsePairingUrl(url).pin).to.equal(undefined);
    const stateDir = gateway.stateDir();
    const first = startAgentProcess(['--pairing', url, '--backend', 'simulate', '--state-dir', stateDir, '--ca', gateway.state.certificate.certFile]);
    try {
      await printed(first, /connected to the gateway/, 45_000);
    } finally {
      expect(await stopAgentProcess(first)).to.equal(0);
    }
    const saved = JSON.parse(readFileSync(join(stateDir, 'device.json'), 'utf8'));
    expect(saved.ca, 'the certificates themselves are saved').to.equal(gateway.state.certificate.pem);

    const boot = startAgentProcess(['--state-dir', stateDir]);
    try {
      await printed(boot, /connected to the gateway/, 45_000);
      expect(boot.output()).not.to.match(/not trusted/);
    } finally {
      expect(await stopAgentProcess(boot)).to.equal(0);
    }
  });
});

describe('device agent: --ca that holds no certificate', () => {
  it('when --ca names a file without a PEM certificate, then the agent says so and exits 2, saving nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-bad-ca-'));
    try {
      const notACertificate = join(dir, 'ca.pem');
      writeFileSync(notACertificate, 'not a certificate\n');
      const url = 'smsgw://127.0.0.1:8883?v=1&device=6f1c2d3e-4a5b-4c6d-8e7f-0123456789ab&token=sgd_not_a_real_token&tls=1';
      const run = startAgentProcess(['--pairing', url, '--backend', 'simulate', '--state-dir', dir, '--ca', notACertificate]);
      expect(await run.exited).to.equal(2);
      expect(run.output()).to.contain(`--ca ${notACertificate} holds no PEM certificate`);
      expect(run.output()).not.to.contain('sgd_not_a_real_token');
      expect(existsSync(join(dir, 'device.json'))).to.equal(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('device agent: TLS from the pairing URL alone, with a private CA', () => {
  let ca: MadeCertificate;
  const gateway = tlsGateway((directory) => {
    ca = certificateAuthority(directory, 'private-ca');
    return issuedBy(ca, directory, 'gateway');
  });

  it('when the CA\'s certificate follows the gateway\'s in TLS_CERT, then the pin is the CA\'s key, and a renewal by that CA with a new key keeps a paired agent connecting', async () => {
    const url = await gateway.pairingUrl();
    expect(parsePairingUrl(url).pin).to.equal(opensslPin(ca.certFile));
    const agent = gateway.agent(url);
    await nextEvent(agent, 'connected');

    const oldKey = opensslPin(gateway.state.certificate.certFile);
    const renewed = issuedBy(ca, gateway.files.directory, 'gateway');
    expect(opensslPin(renewed.certFile), 'the renewal has a new key').not.to.equal(oldKey);
    gateway.renew(renewed);
    const reconnected = nextEvent(agent, 'connected');
    agent.session.drop();
    await reconnected;
    expect(parsePairingUrl(await gateway.pairingUrl()).pin).to.equal(opensslPin(ca.certFile));
  });
});
