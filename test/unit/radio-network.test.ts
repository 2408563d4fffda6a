// The simulated radio network (src/simulator/radio-network.ts): an SMS a simulated phone reports
// sent to a number another SIM of the fleet owns arrives there with the same text, from the
// sender SIM's number; drills keep it from arriving. First on stand-in phones, then once over the
// real gateway: the received SMS is forwarded and listed as any incoming SMS.
import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import type { ReportStatus } from '../../agent/src/protocol/messages.ts';
import type { OutgoingSms } from '../../agent/src/radio/radio.ts';
import { Fleet } from '../../src/simulator/fleet.ts';
import { RadioNetwork, type Carried, type RadioPhone } from '../../src/simulator/radio-network.ts';
import type { SimulatedSim } from '../../src/simulator/sim-numbers.ts';
import { nextEvent } from '../support/devices.ts';
import { useGateway } from '../support/use-gateway.ts';

interface Received {
  phone: string;
  message: string;
  simSlot: number | undefined;
}

/** A phone as the network sees it: what its radio sent, its reports, and what it received. */
class StandInPhone extends EventEmitter<{ report: [smsId: string, status: ReportStatus] }> implements RadioPhone {
  readonly sent = new Map<string, OutgoingSms>();
  readonly received: Received[] = [];

  constructor(readonly id: string, readonly simCards: SimulatedSim[]) {
    super();
  }

  /** Its radio sends the SMS and it reports it sent, as the agent does. */
  send(smsId: string, phone: string, message: string, simSlot?: number, extra: Partial<OutgoingSms> = {}): void {
    this.sent.set(smsId, { smsId, phone, message, simSlot, statusReport: true, ...extra });
    this.emit('report', smsId, 'processing');
    this.emit('report', smsId, 'sent');
  }

  async receive(phone: string, message: string, options: { simSlot?: number } = {}): Promise<string> {
    this.received.push({ phone, message, simSlot: options.simSlot });
    return `in-${this.received.length}`;
  }
}

const sim = (index: number, phone_number: string): SimulatedSim => ({ index, name_operator: 'Simulated Mobile', phone_number });

describe('simulated radio network', () => {
  let alice: StandInPhone;
  let bob: StandInPhone;
  let network: RadioNetwork;

  beforeEach(() => {
    alice = new StandInPhone('alice', [sim(0, '+79160000001'), sim(1, '+79170000001')]);
    bob = new StandInPhone('bob', [sim(0, '+79160000002'), sim(1, '+79170000002')]);
    network = new RadioNetwork();
    network.join(alice);
    network.join(bob);
  });

  afterEach(() => network.stop());

  it('carries an SMS sent to a SIM of the fleet to that SIM, with the same text, from the sending SIM\'s number', async () => {
    const carried = nextEvent(network, 'carried');
    alice.send('sms-1', '+7 917 000-00-02', 'Canary 4F7Q2K', 1);
    const [route] = (await carried) as [Carried];
    expect(bob.received).to.deep.equal([{ phone: '+79170000001', message: 'Canary 4F7Q2K', simSlot: 1 }]);
    expect(route).to.deep.equal({ smsId: 'sms-1', from: { deviceId: 'alice', simSlot: 1, phone: '+79170000001' }, to: { deviceId: 'bob', simSlot: 1 } });
    expect(alice.received).to.deep.equal([]);
    expect(network.stats).to.include({ carried: 1, lost: 0, outside: 0 });
  });

  it('carries each SMS once, and nothing but text SMS to the fleet\'s own numbers', async () => {
    alice.send('sms-1', '+79160000002', 'once');
    alice.emit('report', 'sms-1', 'sent');
    alice.send('sms-2', '+79991234567', 'to a stranger');
    alice.send('sms-3', '+79160000002', '', 0, { data: { bytes: Buffer.from([1, 2]), port: 8080 } });
    await Promise.resolve();
    expect(bob.received.map((sms) => sms.message)).to.deep.equal(['once']);
    expect(network.stats).to.include({ carried: 1, outside: 1 });
  });

  it('loses what a broken sender sends and what a broken receiver should hear, until they are mended', async () => {
    network.breakSender('alice');
    network.breakReceiver('bob:1');
    const lost: string[] = [];
    network.on('lost', (smsId, reason) => lost.push(`${smsId} ${reason}`));
    alice.send('sms-1', '+79160000002', 'never arrives');
    bob.send('sms-2', '+79170000001', 'arrives');
    alice.send('sms-3', '+79170000002', 'never heard');
    await Promise.resolve();
    expect(lost).to.deep.equal(['sms-1 broken_sender', 'sms-3 broken_sender']);
    expect(alice.received.map((sms) => sms.message)).to.deep.equal(['arrives']);

    network.breakSender('alice', false);
    alice.send('sms-4', '+79170000002', 'still not heard on SIM 2');
    alice.send('sms-5', '+79160000002', 'heard on SIM 1');
    await Promise.resolve();
    expect(lost).to.deep.equal(['sms-1 broken_sender', 'sms-3 broken_sender', 'sms-4 broken_receiver']);
    expect(bob.received.map((sms) => sms.message)).to.deep.equal(['heard on SIM 1']);
  });

  it('rings one SIM when two say they have the same number: the one of the lowest device id', async () => {
    const twin = new StandInPhone('aaron', [sim(0, '+79160000002')]);
    network.join(twin);
    expect(network.sharedNumbers()).to.equal(1);
    alice.send('sms-1', '+79160000002', 'for one of them');
    await Promise.resolve();
    expect(twin.received.map((sms) => sms.message)).to.deep.equal(['for one of them']);
    expect(bob.received).to.deep.equal([]);
  });

  it('stops carrying for a phone that left', async () => {
    network.leave(bob);
    alice.send('sms-1', '+79160000002', 'gone');
    bob.send('sms-2', '+79160000001', 'not heard either');
    await Promise.resolve();
    expect(bob.received).to.deep.equal([]);
    expect(alice.received).to.deep.equal([]);
    expect(network.stats).to.include({ carried: 0, outside: 1 });
  });
});

describe('simulated radio network over the gateway', () => {
  const fx = useGateway();

  it('an SMS one phone of a fleet sends to another\'s number comes back as that phone\'s incoming SMS', async () => {
    const registered = await Promise.all(['first', 'second'].map((name) => fx.registerDevice(name)));
    const fleet = fx.track(
      new Fleet({
        count: 0,
        given: registered.map(({ device, token }) => ({ device_id: device.id, token, name: device.name })),
        apiUrl: fx.baseUrl,
        brokerUrl: fx.mqttUrl,
        radioNetwork: true,
      }),
    );
    await fleet.start();
    const [sender, receiver] = registered.map(({ device }) => fleet.devices.find((phone) => phone.id === device.id)!);
    const carried = nextEvent(fleet.network!, 'carried');
    const created = await fx.tenant.api.post('/sms', { phone: receiver!.simCards[0]!.phone_number, message: 'Canary 7XK2', device_id: sender!.id });
    expect(created.status).to.equal(201);
    await carried;

    const listed = await fx.tenant.api.get(`/incoming?device_id=${receiver!.id}`);
    expect(listed.status).to.equal(200);
    const incoming = listed.body.data as { phone: string; message: string; device_id: string; sim_slot: number }[];
    expect(incoming.map(({ phone, message, sim_slot }) => ({ phone, message, sim_slot }))).to.deep.equal([
      { phone: sender!.simCards[0]!.phone_number, message: 'Canary 7XK2', sim_slot: 0 },
    ]);
  });
});
