// No received SMS is lost, whatever the device's settings: while forward_incoming_sms is off the
// agent keeps what its radio received in its journal (on disk) and publishes nothing, the gateway
// stores none, and the heartbeat tells the gateway how many are kept; switched on, the agent
// forwards them oldest first, each once, and the count goes back to 0. A modem's SIM is emptied
// only once the SMS is in the journal. Real gateway, real broker over TCP, the real agent; the
// radio is scripted, or the modem radio on the stand-in modem.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Packet } from 'mqtt';
import { DeviceAgent } from '../../agent/src/agent.ts';
import { Journal } from '../../agent/src/journal/journal.ts';
import type { DeviceSettings } from '../../agent/src/protocol/messages.ts';
import { createModemRadio } from '../../agent/src/radio/modem/index.ts';
import type { Radio, ReceivedSms } from '../../agent/src/radio/radio.ts';
import { nextDomainEvent, nextEvent } from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import { useGateway } from '../support/use-gateway.ts';
import { TEST_TIMINGS } from './support/modem-fixture.ts';
import { ModemStandin } from './support/modem-standin.ts';
import { ScriptedRadio } from './support/scripted-radio.ts';
import { incomingRowsOfDevice } from '../support/test-data.ts';

const SENDER = '+491701234567';
const REJECTED = 'device_messages_rejected_total';

describe('device agent: received SMS kept while forwarding is off', function () {
  this.timeout(30_000);
  const fx = useGateway();
  const dirs: string[] = [];
  const agents: DeviceAgent[] = [];
  const standins: ModemStandin[] = [];

  afterEach(async () => {
    await Promise.allSettled(agents.splice(0).map((agent) => agent.stop()));
    await Promise.allSettled(standins.splice(0).map((standin) => standin.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A device registered as the API registers one (forwarding on), then switched off. */
  async function deviceForwardingOff(): Promise<{ id: string; token: string }> {
    const registered = await fx.tenant.api.post('/devices', { name: 'keeper' });
    expect(registered.body.device.forward_incoming_sms, 'the default').to.equal(true);
    const id: string = registered.body.device.id;
    await forwarding(id, false);
    return { id, token: registered.body.credentials.password };
  }

  async function forwarding(deviceId: string, on: boolean): Promise<void> {
    const reply = await fx.tenant.api.patch(`/devices/${deviceId}/settings`, { forward_incoming_sms: on });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  }

  function stateDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'agent-held-'));
    dirs.push(dir);
    return dir;
  }

  /** Starts the agent and resolves once it has the gateway's settings. */
  async function startAgent(device: { id: string; token: string }, radio: Radio, dir: string): Promise<DeviceAgent> {
    const agent = new DeviceAgent({
      brokerUrl: `mqtt://127.0.0.1:${fx.gateway.mqttPort}`,
      deviceId: device.id,
      token: device.token,
      radio,
      journal: Journal.open(dir),
      reconnectPeriodMs: 50,
    });
    agents.push(agent);
    const settings = nextEvent(agent, 'settings', () => true);
    await agent.start();
    await settings;
    return agent;
  }

  /** Counts the agent's PUBLISH packets on its incoming topic, as they leave its MQTT client. */
  function countIncomingPublishes(agent: DeviceAgent): () => number {
    let count = 0;
    agent.session.mqttClient!.on('packetsend', (packet: Packet) => {
      if (packet.cmd === 'publish' && packet.topic.endsWith('/incoming')) count++;
    });
    return () => count;
  }

  const stored = (deviceId: string) => incomingRowsOfDevice(fx, deviceId);
  const heldShown = async (deviceId: string) => (await fx.tenant.api.get(`/devices/${deviceId}`)).body.incoming_held as number | null;

  function sms(n: number): ReceivedSms {
    return { id: `kept-${n}`, phone: SENDER, message: `reply number ${n}`, receivedAt: new Date(Date.UTC(2026, 10, 29, 9, n)), simSlot: 0 };
  }

  describe('when the phone receives SMS while forwarding is off', () => {
    it('then the agent keeps them and publishes none, the gateway stores none, and the device shows how many are kept', async () => {
      const device = await deviceForwardingOff();
      const radio = new ScriptedRadio();
      const agent = await startAgent(device, radio, stateDir());
      expect(agent.settings?.forward_incoming_sms).to.equal(false);
      const publishes = countIncomingPublishes(agent);
      const refusedBefore = fx.gateway.services.metrics.value(REJECTED, { reason: 'forwarding_off' });

      for (const n of [1, 2, 3]) await radio.receive(sms(n));

      expect(agent.incomingHeld).to.equal(3);
      expect([...agent.journal.held.keys()]).to.deep.equal(['kept-1', 'kept-2', 'kept-3']);
      // The heartbeat that follows the change carries the count, and the API shows it.
      await eventually('the device to show 3 kept SMS', async () => (await heldShown(device.id)) === 3);
      expect(publishes(), 'nothing published while off').to.equal(0);
      expect(fx.gateway.services.metrics.value(REJECTED, { reason: 'forwarding_off' }), 'nothing for the gateway to drop').to.equal(refusedBefore);
      expect(await stored(device.id)).to.deep.equal([]);
      expect((await fx.tenant.api.get('/incoming')).body.data).to.deep.equal([]);
    });
  });

  describe('when forwarding is switched on', () => {
    it('then the kept SMS are forwarded oldest first, each once, the gateway stores them, and the count goes back to 0', async () => {
      const device = await deviceForwardingOff();
      const radio = new ScriptedRadio();
      const agent = await startAgent(device, radio, stateDir());
      const publishes = countIncomingPublishes(agent);
      for (const n of [1, 2, 3, 4]) await radio.receive(sms(n));
      await eventually('the device to show 4 kept SMS', async () => (await heldShown(device.id)) === 4);

      const on = nextEvent(agent, 'settings', (settings: DeviceSettings) => settings.forward_incoming_sms === true);
      await forwarding(device.id, true);
      await on;
      await eventually('the gateway to acknowledge every forwarded SMS', () => agent.journal.outbox.size === 0);

      const rows = await stored(device.id);
      expect(rows.map((row: { device_message_id: string }) => row.device_message_id)).to.deep.equal(['kept-1', 'kept-2', 'kept-3', 'kept-4']);
      expect(rows.map((row: { message: string }) => row.message)).to.deep.equal([1, 2, 3, 4].map((n) => `reply number ${n}`));
      expect(publishes(), 'each published once').to.equal(4);
      expect(agent.incomingHeld).to.equal(0);
      await eventually('the device to show no kept SMS', async () => (await heldShown(device.id)) === 0);

      // From now on what the phone receives goes straight through.
      await agent.forwardIncoming(sms(5));
      expect((await stored(device.id)).map((row: { device_message_id: string }) => row.device_message_id)).to.include('kept-5');
      expect(publishes()).to.equal(5);
    });
  });

  describe('when forwarding is switched off again before every kept SMS went out', () => {
    it('then none is lost: those the gateway did not take are kept again, and once it is back on all are stored, each once, in the order received', async () => {
      const device = await deviceForwardingOff();
      const radio = new ScriptedRadio();
      const agent = await startAgent(device, radio, stateDir());
      const all = Array.from({ length: 30 }, (_, i) => sms(i + 1));
      for (const received of all) await radio.receive(received);

      const firstStored = nextDomainEvent(fx.gateway.services.events, 'incoming.stored', (row) => row.device_id === device.id);
      await forwarding(device.id, true);
      await firstStored;
      const off = nextEvent(agent, 'settings', (settings: DeviceSettings) => settings.forward_incoming_sms === false);
      await forwarding(device.id, false);
      await off;
      await eventually('no received SMS left to publish', () => ![...agent.journal.outbox.values()].some((item) => item.topic === 'incoming'));
      const storedIds = (await stored(device.id)).map((row: { device_message_id: string }) => row.device_message_id);
      const kept = [...agent.journal.held.keys()];
      expect(kept.length, 'some were still to go when forwarding went off').to.be.greaterThan(0);
      expect([...new Set([...storedIds, ...kept])].sort(), 'stored or kept, none lost').to.deep.equal(all.map((received) => received.id).sort());

      await forwarding(device.id, true);
      // One after another, each committed before the next goes: slow on a loaded machine.
      await eventually('all 30 stored', async () => (await stored(device.id)).length === 30, 30_000);
      await eventually('nothing kept or waiting', () => agent.journal.held.size === 0 && agent.journal.outbox.size === 0, 30_000);
      expect((await stored(device.id)).map((row: { device_message_id: string }) => row.device_message_id)).to.deep.equal(all.map((received) => received.id));
    });
  });

  describe('when the phone receives an SMS before the first settings came', () => {
    it('then the agent keeps it until they come, and a new device (forwarding on by default) then forwards it', async () => {
      const registered = await fx.tenant.api.post('/devices', { name: 'early' });
      const device = { id: registered.body.device.id as string, token: registered.body.credentials.password as string };
      const agent = new DeviceAgent({
        brokerUrl: `mqtt://127.0.0.1:${fx.gateway.mqttPort}`,
        deviceId: device.id,
        token: device.token,
        radio: new ScriptedRadio(),
        journal: Journal.open(stateDir()),
        reconnectPeriodMs: 50,
      });
      agents.push(agent);
      // Not connected yet: no settings, so nothing is known of forwarding.
      const forwarded = agent.forwardIncoming(sms(1));
      await eventually('the SMS to be kept', () => agent.incomingHeld === 1);
      await agent.start();
      await forwarded;
      expect(agent.settings?.forward_incoming_sms).to.equal(true);
      expect((await stored(device.id)).map((row: { device_message_id: string }) => row.device_message_id)).to.deep.equal(['kept-1']);
      expect(agent.incomingHeld).to.equal(0);
    });
  });

  describe('when the agent restarts while it keeps SMS', () => {
    it('then the kept SMS survive in the journal on disk and are forwarded once forwarding is on', async () => {
      const device = await deviceForwardingOff();
      const dir = stateDir();
      const radio = new ScriptedRadio();
      const first = await startAgent(device, radio, dir);
      for (const n of [1, 2]) await radio.receive(sms(n));
      // A power cut: nothing flushed beyond the journal.
      await first.crash();

      const second = await startAgent(device, new ScriptedRadio(), dir);
      expect([...second.journal.held.keys()]).to.deep.equal(['kept-1', 'kept-2']);
      await eventually('the device to show 2 kept SMS', async () => (await heldShown(device.id)) === 2);
      expect(await stored(device.id)).to.deep.equal([]);

      await forwarding(device.id, true);
      await eventually('both kept SMS stored', async () => (await stored(device.id)).length === 2);
      await eventually('the journal to be empty', () => second.journal.outbox.size === 0 && second.journal.held.size === 0);
      expect((await stored(device.id)).map((row: { device_message_id: string }) => row.device_message_id)).to.deep.equal(['kept-1', 'kept-2']);
    });
  });

  describe('when a modem receives an SMS while forwarding is off', () => {
    it('then the SMS is kept in the journal on disk before the modem deletes it from the SIM, and forwarded once forwarding is on', async () => {
      const device = await deviceForwardingOff();
      const dir = stateDir();
      const standin = await ModemStandin.start();
      standins.push(standin);
      const agent = await startAgent(device, createModemRadio({ path: standin.agentPath, ...TEST_TIMINGS }), dir);

      // What the journal file holds at the moment the modem is told to delete the SMS.
      const journalAtDelete = new Promise<string>((resolve) => {
        const listener = (command: string) => {
          if (!/^AT\+CMGD=/.test(command)) return;
          standin.off('command', listener);
          resolve(readFileSync(join(dir, 'journal.jsonl'), 'utf8'));
        };
        standin.on('command', listener);
      });
      standin.deliverIncoming(SENDER, 'STOP');
      const journal = await journalAtDelete;
      const kept = journal
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { op: string; sms?: { payload: string } })
        .filter((change) => change.op === 'hold')
        .map((change) => JSON.parse(change.sms!.payload) as { phone: string; message: string });
      expect(kept).to.deep.equal([{ ...kept[0], phone: SENDER, message: 'STOP' }]);
      await standin.storageEmptied();
      expect(agent.incomingHeld).to.equal(1);
      expect(await stored(device.id)).to.deep.equal([]);

      await forwarding(device.id, true);
      const [row] = await eventually('the SMS stored', async () => {
        const rows = await stored(device.id);
        return rows.length > 0 && rows;
      });
      expect(row).to.include({ phone: SENDER, message: 'STOP' });
      await eventually('the journal to be empty', () => agent.journal.outbox.size === 0 && agent.journal.held.size === 0);
      expect(await stored(device.id)).to.have.length(1);
    });
  });
});
