// The device agent against a real gateway over real MQTT, with a radio the test scripts: tasks
// become sends and statuses, received SMS and calls reach the gateway, a revoked task is never
// sent, and a restart in the middle of a send neither sends an SMS twice nor loses a report.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceAgent } from '../../agent/src/agent.ts';
import { Journal } from '../../agent/src/journal/journal.ts';
import type { ReportStatus } from '../../agent/src/protocol/messages.ts';
import { liftLimits, nextEvent } from '../support/devices.ts';
import { heartbeatRecorded } from '../support/legacy.ts';
import { useGateway } from '../support/use-gateway.ts';
import { Relay } from './support/proxy.ts';
import { ScriptedRadio } from './support/scripted-radio.ts';

const PHONE = '+79161234567';

function internalStatuses(sms: { history: { internal_status: string }[] }): string[] {
  return sms.history.map((entry) => entry.internal_status);
}

describe('device agent: the protocol against a gateway', () => {
  const fx = useGateway();
  const dirs: string[] = [];
  const agents: DeviceAgent[] = [];

  afterEach(async () => {
    await Promise.allSettled(agents.splice(0).map((agent) => agent.stop()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function register(name = 'agent-phone'): Promise<{ id: string; token: string }> {
    const { device, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, name);
    await liftLimits(fx.gateway, fx.tenant, device.id);
    return { id: device.id, token };
  }

  function stateDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'agent-journal-'));
    dirs.push(dir);
    return dir;
  }

  async function startAgent(device: { id: string; token: string }, radio: ScriptedRadio, options: { dir?: string; brokerUrl?: string; acknowledgeDelayMs?: number; ca?: string } = {}): Promise<DeviceAgent> {
    const agent = new DeviceAgent({
      brokerUrl: options.brokerUrl ?? `mqtt://127.0.0.1:${fx.gateway.mqttPort}`,
      deviceId: device.id,
      token: device.token,
      radio,
      journal: Journal.open(options.dir),
      reconnectPeriodMs: 50,
      ...(options.acknowledgeDelayMs ? { acknowledgeDelayMs: options.acknowledgeDelayMs } : {}),
      ...(options.ca ? { ca: options.ca } : {}),
    });
    agents.push(agent);
    await agent.start();
    return agent;
  }

  /** Resolves once the gateway acknowledged the report of `status` for `smsId` (committed). */
  function reported(agent: DeviceAgent, smsId: () => string | undefined, status: ReportStatus, timeoutMs = 5_000) {
    return nextEvent(agent, 'report', (id, reportedStatus) => id === smsId() && reportedStatus === status, timeoutMs);
  }

  async function smsOf(id: string): Promise<any> {
    return (await fx.tenant.api.get(`/sms/${id}`)).body;
  }

  describe('when the gateway hands it a task', () => {
    it('then the radio gets the SMS once, after the acknowledgement, and the gateway sees sent then delivered from the delivery report', async () => {
      const radio = new ScriptedRadio();
      const agent = await startAgent(await register(), radio);
      let id: string | undefined;
      const sent = reported(agent, () => id, 'sent');
      const handed = radio.nextSend();
      id = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'über "quotes"; ok' })).body.id;
      const sms = await handed;
      expect(sms).to.include({ smsId: id, phone: PHONE, message: 'über "quotes"; ok', statusReport: true });
      expect(internalStatuses(await smsOf(id!)), 'acknowledged before the radio had it').to.include('processing');
      await sent;
      const delivered = reported(agent, () => id, 'delivered');
      await radio.report({ reference: 10, phone: PHONE, outcome: 'delivered' });
      await delivered;
      const read = await smsOf(id!);
      expect(read.status).to.equal('delivered');
      expect(internalStatuses(read)).to.deep.equal(['pending', 'processing', 'sent', 'delivered']);
      expect(radio.sent).to.have.length(1);
    });

    it('then a send the radio refuses ends as failed_send with the radio\'s error', async () => {
      const radio = new ScriptedRadio();
      radio.answer({ ok: false, error: '+CMS ERROR 38: network out of order' });
      const agent = await startAgent(await register(), radio);
      let id: string | undefined;
      const failed = reported(agent, () => id, 'failed_send');
      id = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'refused' })).body.id;
      await failed;
      const read = await smsOf(id!);
      expect(read.status).to.equal('failed_send');
      expect(JSON.stringify(read)).to.contain('+CMS ERROR 38: network out of order');
    });

    it('then a long SMS whose parts are reported one by one is delivered only once every part is', async () => {
      const radio = new ScriptedRadio();
      radio.answer({ ok: true, references: [200, 201, 202] });
      const agent = await startAgent(await register(), radio);
      let id: string | undefined;
      const sent = reported(agent, () => id, 'sent');
      id = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'a long text, sent by the radio in three parts' })).body.id;
      await sent;
      await radio.report({ reference: 200, phone: PHONE, outcome: 'delivered' });
      await radio.report({ reference: 201, phone: PHONE, outcome: 'pending' });
      await radio.report({ reference: 201, phone: PHONE, outcome: 'delivered' });
      expect(agent.statusOf(id!), 'two of three parts delivered').to.equal('sent');
      const delivered = reported(agent, () => id, 'delivered');
      await radio.report({ reference: 202, phone: PHONE, outcome: 'delivered' });
      await delivered;
    });

    it('then a part the network gives up on makes the SMS undelivered, with the reason', async () => {
      const radio = new ScriptedRadio();
      const agent = await startAgent(await register(), radio);
      let id: string | undefined;
      const sent = reported(agent, () => id, 'sent');
      id = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'to a dead number' })).body.id;
      await sent;
      const undelivered = reported(agent, () => id, 'undelivered');
      await radio.report({ reference: 10, phone: PHONE, outcome: 'undelivered', error: 'SME busy, given up' });
      await undelivered;
      expect((await smsOf(id!)).status).to.equal('undelivered');
    });
  });

  describe('when the radio describes itself outside the heartbeat\'s bounds', () => {
    it('then the agent rounds and trims what it sends, and the gateway records the heartbeat instead of dropping it', async () => {
      const radio = new ScriptedRadio();
      radio.statusAnswer = {
        batteryLevel: 87.6,
        isCharging: false,
        signalPercent: 55.5,
        simCards: Array.from({ length: 9 }, (_, index) => ({ index: index % 8, name_operator: 'O'.repeat(150) })),
        type: 'modem',
        name: 'N'.repeat(150),
      };
      const device = await register();
      const recorded = heartbeatRecorded(fx.gateway, device.id);
      await startAgent(device, radio);
      await recorded;
      const view = (await fx.tenant.api.get(`/devices/${device.id}`)).body;
      expect(view).to.include({ battery_level: 88, signal_percent: 56 });
      expect(view.sim_cards).to.have.length(8);
      expect(view.sim_cards[0].name_operator).to.have.length(100);
    });
  });

  describe('when the radio knows its SIMs\' own numbers', () => {
    it('then the heartbeat carries those in international form, the API shows them as reported by the device, and leaves out one that is not', async () => {
      const radio = new ScriptedRadio();
      radio.statusAnswer = {
        simCards: [
          { index: 0, name_operator: 'MTS', phone_number: '+79165550001' },
          { index: 1, name_operator: 'Beeline', phone_number: '89165550002' },
        ],
        type: 'android',
      };
      const device = await register();
      const recorded = heartbeatRecorded(fx.gateway, device.id);
      await startAgent(device, radio);
      await recorded;
      const view = (await fx.tenant.api.get(`/devices/${device.id}`)).body;
      expect(view.sim_cards).to.deep.equal([
        { index: 0, name_operator: 'MTS', phone_number: '+79165550001', phone_number_source: 'device' },
        { index: 1, name_operator: 'Beeline', phone_number: null, phone_number_source: null },
      ]);
    });
  });

  describe('when the client cancels a task before the agent acknowledged it', () => {
    it('then the revoke reaches the agent first and the radio never gets the SMS', async () => {
      const radio = new ScriptedRadio();
      const agent = await startAgent(await register(), radio, { acknowledgeDelayMs: 300 });
      const taken = nextEvent(agent, 'task');
      const id = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'cancel me' })).body.id;
      await taken;
      const revoked = nextEvent(agent, 'revoked', (smsId) => smsId === id);
      expect((await fx.tenant.api.post(`/sms/${id}/cancel`)).status).to.equal(200);
      const [, reason, forgotten] = await revoked;
      expect(reason).to.equal('cancelled');
      expect(forgotten).to.equal(true);
      // A later SMS goes through the same agent: the cancelled one was never handed to the radio.
      let later: string | undefined;
      const sent = reported(agent, () => later, 'sent');
      later = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'after the cancel' })).body.id;
      await sent;
      expect(radio.sent.map((sms) => sms.smsId)).to.deep.equal([later]);
    });
  });

  describe('when the radio receives an SMS and sees a call', () => {
    it('then both reach the gateway (a new device forwards what it receives; test/agent/incoming-held.test.ts: what happens while it does not)', async () => {
      const radio = new ScriptedRadio();
      const device = await register();
      const agent = await startAgent(device, radio);
      expect(agent.settings?.forward_incoming_sms).to.equal(true);
      await agent.forwardIncoming({ id: 'on-1', phone: '+4915112345678', message: 'hello gateway', receivedAt: new Date('2026-11-26T10:00:00Z'), simSlot: 0 });
      const incoming = (await fx.tenant.api.get('/incoming')).body.data;
      expect(incoming).to.have.length(1);
      expect(incoming[0]).to.include({ message: 'hello gateway' });

      await agent.forwardCall({ id: 'call-1', direction: 'missed', phone: '+4915112345678', startedAt: new Date('2026-11-26T10:05:00Z'), durationSeconds: 0 });
      const calls = (await fx.tenant.api.get('/calls')).body.data;
      expect(calls.map((call: { direction: string }) => call.direction)).to.deep.equal(['missed']);
      expect(agent.journal.outbox.size, 'acknowledged reports leave the journal').to.equal(0);
    });
  });

  describe('when the agent restarts in the middle of a send', () => {
    it('then an SMS the radio had when the agent died is reported failed with an unknown outcome, never sent again', async () => {
      const device = await register();
      const dir = stateDir();
      const first = new ScriptedRadio();
      first.answer('hang');
      const agent = await startAgent(device, first, { dir });
      const handed = first.nextSend();
      const id = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'mid-send crash' })).body.id;
      await handed;
      await agent.crash();

      const second = new ScriptedRadio();
      const again = new DeviceAgent({ brokerUrl: `mqtt://127.0.0.1:${fx.gateway.mqttPort}`, deviceId: device.id, token: device.token, radio: second, journal: Journal.open(dir), reconnectPeriodMs: 50 });
      agents.push(again);
      const failed = reported(again, () => id, 'failed_send');
      await again.start();
      await failed;
      const read = await smsOf(id);
      expect(read.status).to.equal('failed_send');
      expect(JSON.stringify(read)).to.contain('whether it went out is unknown');
      expect(second.sent, 'nothing handed to the radio again').to.deep.equal([]);
      expect(first.sent).to.have.length(1);
    });

    it('then a report the gateway never acknowledged is sent by the next run, and a redelivered task is answered, not sent', async () => {
      const device = await register();
      const dir = stateDir();
      const relay = await Relay.start(fx.gateway.mqttPort);
      try {
        const first = new ScriptedRadio();
        const agent = await startAgent(device, first, { dir, brokerUrl: `mqtt://127.0.0.1:${relay.port}` });
        const handed = first.nextSend();
        const id = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'report lost in a crash' })).body.id;
        await handed;
        // The network goes as the radio answers: the "sent" report cannot leave, then the process dies.
        relay.cut();
        await new Promise((resolve) => setImmediate(resolve));
        expect([...agent.journal.outbox.values()].map((item) => JSON.parse(item.payload).status)).to.deep.equal(['sent']);
        await agent.crash();
        expect(internalStatuses(await smsOf(id)), 'acknowledged, nothing after').to.deep.equal(['pending', 'processing']);

        relay.restore();
        const second = new ScriptedRadio();
        const again = new DeviceAgent({ brokerUrl: `mqtt://127.0.0.1:${relay.port}`, deviceId: device.id, token: device.token, radio: second, journal: Journal.open(dir), reconnectPeriodMs: 50 });
        agents.push(again);
        const sent = reported(again, () => id, 'sent');
        await again.start();
        await sent;
        expect((await smsOf(id)).status).to.equal('sent');
        // The delivery report of the part sent before the crash still finds its SMS.
        const delivered = reported(again, () => id, 'delivered');
        await second.report({ reference: 10, phone: PHONE, outcome: 'delivered' });
        await delivered;
        expect(second.sent).to.deep.equal([]);
        expect(first.sent).to.have.length(1);
      } finally {
        await relay.close();
      }
    });
  });

  describe('when the broker is reached over TLS', () => {
    let certDir: string;
    let relay: Relay;

    before(async () => {
      // A certificate for 127.0.0.1, made for this run, standing in for a gateway's TLS terminator.
      certDir = mkdtempSync(join(tmpdir(), 'agent-tls-'));
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(certDir, 'key.pem'), '-out', join(certDir, 'cert.pem')], { stdio: 'ignore' });
      relay = await Relay.start(fx.gateway.mqttPort, { key: readFileSync(join(certDir, 'key.pem')), cert: readFileSync(join(certDir, 'cert.pem')) });
    });

    after(async () => {
      await relay.close();
      rmSync(certDir, { recursive: true, force: true });
    });

    it('then an agent trusting the certificate connects with mqtts:// and delivers', async () => {
      const radio = new ScriptedRadio();
      const agent = await startAgent(await register(), radio, { brokerUrl: `mqtts://127.0.0.1:${relay.port}`, ca: readFileSync(join(certDir, 'cert.pem'), 'utf8') });
      let id: string | undefined;
      const sent = reported(agent, () => id, 'sent');
      id = (await fx.tenant.api.post('/sms', { phone: PHONE, message: 'over TLS' })).body.id;
      await sent;
      expect(radio.sent.map((sms) => sms.smsId)).to.deep.equal([id]);
    });

    it('then an agent that does not trust the certificate never connects', async () => {
      const device = await register();
      const agent = new DeviceAgent({ brokerUrl: `mqtts://127.0.0.1:${relay.port}`, deviceId: device.id, token: device.token, radio: new ScriptedRadio(), reconnectPeriodMs: 0 });
      let failure: unknown;
      try {
        await agent.start();
      } catch (error) {
        failure = error;
      } finally {
        await agent.stop();
      }
      expect(String(failure)).to.match(/self[- ]signed|certificate/i);
    });
  });
});
