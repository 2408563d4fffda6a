// Work goes only to devices that can do it. A device says in its heartbeat what it can do (MMS,
// USSD, data SMS, call recordings, the fingerprint of the end-to-end passphrase it holds); the
// gateway stores it, shows it, hands pool work only to devices that can, refuses at once what no
// device could do, and lets work wait for a capable device that is merely offline. A phone that
// never says (an older app) is handed everything, as before. Real gateway, real broker over TCP,
// the real device agent (simulated radio, and a modem radio on a stand-in modem).
import { expect } from 'chai';
import { DeviceAgent } from '../../agent/src/agent.ts';
import { Journal } from '../../agent/src/journal/journal.ts';
import { encrypt, passphraseFingerprint } from '../../src/common/end-to-end.ts';
import { SimulatedDevice, type SimulatedDeviceOptions } from '../../src/simulator/device.ts';
import { liftLimits, nextDomainEvent, nextEvent } from '../support/devices.ts';
import { heartbeatRecorded } from '../support/legacy.ts';
import { useGateway } from '../support/use-gateway.ts';
import { mmsConfig } from '../mms/mms-fixture.ts';
import { useModem } from '../agent/support/modem-fixture.ts';
import { smsRowsOf } from '../support/test-data.ts';

const PHONE = '+79161234567';
const ALPHA = 'alpha passphrase shared with the first phone';
const BETA = 'beta passphrase shared with the second phone';

describe('device capabilities: work goes only to devices that can do it', () => {
  const fx = useGateway({ config: mmsConfig(() => fx) });
  const modem = useModem();
  const running: { stop(): Promise<void> }[] = [];

  afterEach(async () => {
    await Promise.allSettled(running.splice(0).map((device) => device.stop()));
  });

  /** A simulated phone, connected, once the gateway recorded its first heartbeat. */
  async function phone(options: Partial<SimulatedDeviceOptions> = {}): Promise<SimulatedDevice> {
    const { device, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, options.name ?? 'phone');
    await liftLimits(fx.gateway, fx.tenant, device.id);
    const recorded = heartbeatRecorded(fx.gateway, device.id);
    const simulated = new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${fx.gateway.mqttPort}`, deviceId: device.id, token, reconnectPeriodMs: 100, ...options });
    running.push(simulated);
    await simulated.connect();
    await recorded;
    return simulated;
  }

  /** A phone that reported what it can do, then went offline (its capabilities stay recorded). */
  async function offlinePhone(options: Partial<SimulatedDeviceOptions> = {}): Promise<SimulatedDevice> {
    const device = await phone(options);
    const gone = nextDomainEvent(fx.gateway.services.events, 'device.offline', (event) => event.deviceId === device.id);
    await device.kill();
    await gone;
    return device;
  }

  async function view(deviceId: string): Promise<any> {
    return (await fx.tenant.api.get(`/devices/${deviceId}`)).body;
  }

  /** Resolves once the phone reported `status` for the SMS `id()` names (acknowledged by the gateway). */
  function reported(device: SimulatedDevice, id: () => string | undefined, status = 'sent') {
    return nextEvent(device, 'report', (smsId, reportedStatus) => smsId === id() && reportedStatus === status);
  }

  describe('when phones send heartbeats', () => {
    it('then the gateway stores what each says it can do and the API shows it; a phone that does not say shows null', async () => {
      const full = await phone({ apiUrl: fx.baseUrl, passphrase: ALPHA });
      expect((await view(full.id)).capabilities).to.deep.equal({
        mms: true,
        ussd: true,
        data_sms: true,
        call_recording: true,
        passphrase_fingerprint: await passphraseFingerprint(ALPHA),
      });
      // Without the gateway's HTTP address the simulator can neither fetch MMS parts nor upload recordings.
      const bare = await phone();
      expect((await view(bare.id)).capabilities).to.deep.equal({ mms: false, ussd: true, data_sms: true, call_recording: false });

      const old = await fx.taskPhone();
      await old.heartbeat();
      expect((await view(old.id)).capabilities).to.equal(null);
      const listed = (await fx.tenant.api.get('/devices')).body.data;
      expect(listed.find((device: { id: string }) => device.id === full.id).capabilities.mms).to.equal(true);
    });

    it('then a heartbeat whose capabilities break the contract is dropped whole, and the stored ones stay', async () => {
      const device = await phone({ apiUrl: fx.baseUrl });
      const before = (await view(device.id)).capabilities;
      const topic = `sms-gateway/v1/devices/${device.id}/heartbeat`;
      const bad = [
        { mms: 'yes', ussd: true, data_sms: true, call_recording: true },
        { mms: true, ussd: true, data_sms: true, call_recording: true, passphrase_fingerprint: 'correct horse' },
        { mms: true, ussd: true, data_sms: true, call_recording: true, teleport: true },
      ];
      for (const capabilities of bad) {
        await device.publishRaw(topic, JSON.stringify({ battery_level: 11, is_charging: false, sim_cards: [], capabilities }));
      }
      // A valid heartbeat after them: once it is recorded, the bad ones were handled before it.
      const recorded = heartbeatRecorded(fx.gateway, device.id);
      await device.heartbeat();
      await recorded;
      const after = await view(device.id);
      expect(after.capabilities).to.deep.equal(before);
      expect(after.battery_level, 'none of the bad heartbeats was recorded').to.not.equal(11);
    });
  });

  describe('when an MMS is sent without naming a device', () => {
    it('then with only a phone that sends no MMS it is refused at once with 409 no_capable_device, and nothing is queued', async () => {
      const bare = await phone();
      const refused = await fx.tenant.api.post('/mms', { phone: PHONE, subject: 'no MMS here' });
      expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
      expect(refused.body.error.code).to.equal('no_capable_device');
      expect(refused.body.error.message).to.contain('send MMS');
      const named = await fx.tenant.api.post('/mms', { phone: PHONE, subject: 'no MMS here', device_id: bare.id });
      expect(named.status).to.equal(409);
      expect(named.body.error.code).to.equal('device_not_capable');
      expect(await smsRowsOf(fx, fx.tenant.accountId)).to.deep.equal([]);
      expect(bare.handled.size, 'the phone was handed nothing').to.equal(0);
    });

    it('then it waits for the phone that sends MMS while that one is offline, is never handed to the one that cannot, and goes out once it is back', async () => {
      const capable = await offlinePhone({ apiUrl: fx.baseUrl, name: 'mms-phone' });
      const bare = await phone({ name: 'text-phone' });
      let id: string | undefined;
      const sent = reported(capable, () => id);
      const created = await fx.tenant.api.post('/mms', { phone: PHONE, subject: 'for the MMS phone' });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      id = created.body.id;
      // The phone that cannot is online and has room: a claim now would have handed it the MMS.
      await fx.gateway.services.dispatcher.sweep();
      expect((await fx.tenant.api.get(`/sms/${id}`)).body).to.include({ status: 'pending', device_id: null });
      await capable.connect();
      await sent;
      expect((await fx.tenant.api.get(`/sms/${id}`)).body).to.include({ device_id: capable.id });

      // Both online now: each MMS goes to the one that sends MMS, whichever is offered the pool first.
      const more: string[] = [];
      const allSent = Promise.all([0, 1, 2].map((index) => reported(capable, () => more[index])));
      for (let index = 0; index < 3; index++) more.push((await fx.tenant.api.post('/mms', { phone: PHONE, subject: `more ${index}` })).body.id);
      await allSent;
      expect(bare.handled.size, 'the phone that sends no MMS was handed none').to.equal(0);
    });
  });

  describe('when an encrypted SMS names the fingerprint of its passphrase', () => {
    it('then only the phone holding that passphrase is handed it, and with no phone holding one it is refused at once', async () => {
      const beta = await offlinePhone({ passphrase: BETA, name: 'beta' });
      const alpha = await phone({ passphrase: ALPHA, name: 'alpha' });
      const body = async (passphrase: string) => ({
        phone: await encrypt(PHONE, passphrase),
        message: await encrypt('for beta only', passphrase),
        passphrase_fingerprint: await passphraseFingerprint(passphrase),
      });
      let id: string | undefined;
      const sent = reported(beta, () => id);
      const created = await fx.tenant.api.post('/sms/encrypted', await body(BETA));
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      id = created.body.id;
      await fx.gateway.services.dispatcher.sweep();
      expect((await fx.tenant.api.get(`/sms/${id}`)).body, 'alpha cannot open it: it waits').to.include({ status: 'pending', device_id: null });
      await beta.connect();
      await sent;
      expect(beta.sent.get(id!)).to.include({ phone: PHONE, message: 'for beta only' });
      expect(alpha.handled.has(id!)).to.equal(false);

      const named = await fx.tenant.api.post('/sms/encrypted', { ...(await body(BETA)), device_id: alpha.id });
      expect(named.status).to.equal(409);
      expect(named.body.error.code).to.equal('device_not_capable');
      const nobody = await fx.tenant.api.post('/sms/encrypted', await body('a passphrase no phone holds'));
      expect(nobody.status).to.equal(409);
      expect(nobody.body.error.code).to.equal('no_capable_device');
    });

    it('then a no_store one is handed only to the phone holding that passphrase, each time', async () => {
      const alpha = await phone({ passphrase: ALPHA, name: 'alpha' });
      const beta = await phone({ passphrase: BETA, name: 'beta' });
      const fingerprint = await passphraseFingerprint(BETA);
      // Devices with room take turns for no_store SMS: three in a row would reach alpha at least once.
      for (let index = 0; index < 3; index++) {
        let id: string | undefined;
        const sent = reported(beta, () => id);
        const created = await fx.tenant.api.post('/sms/encrypted', {
          phone: await encrypt(PHONE, BETA),
          message: await encrypt(`now ${index}`, BETA),
          passphrase_fingerprint: fingerprint,
          no_store: true,
        });
        expect(created.status, JSON.stringify(created.body)).to.equal(201);
        id = created.body.id;
        await sent;
      }
      expect(alpha.handled.size, 'alpha cannot open them and was handed none').to.equal(0);
    });

    it('then without a fingerprint it goes to a phone holding a passphrase, and is refused when none holds one', async () => {
      const plain = await phone({ name: 'no passphrase' });
      const refused = await fx.tenant.api.post('/sms/encrypted', { phone: await encrypt(PHONE, ALPHA), message: await encrypt('hi', ALPHA) });
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal('no_capable_device');

      const holder = await offlinePhone({ passphrase: ALPHA, name: 'holds a passphrase' });
      let id: string | undefined;
      const sent = reported(holder, () => id);
      const created = await fx.tenant.api.post('/sms/encrypted', { phone: await encrypt(PHONE, ALPHA), message: await encrypt('hi', ALPHA) });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      id = created.body.id;
      await fx.gateway.services.dispatcher.sweep();
      expect((await fx.tenant.api.get(`/sms/${id}`)).body).to.include({ status: 'pending', device_id: null });
      await holder.connect();
      await sent;
      expect(plain.handled.size, 'the phone without a passphrase was handed nothing').to.equal(0);
    });
  });

  describe('when USSD is dialled on a modem agent', () => {
    it('then the modem says it cannot, and the request is refused at once with 409 device_not_capable', async () => {
      const { radio } = await modem.start({ started: false });
      const { device, token } = await fx.gateway.services.devices.register(fx.tenant.accountId, 'modem');
      const recorded = heartbeatRecorded(fx.gateway, device.id);
      const agent = new DeviceAgent({ brokerUrl: `mqtt://127.0.0.1:${fx.gateway.mqttPort}`, deviceId: device.id, token, radio, journal: Journal.open(), reconnectPeriodMs: 50 });
      running.push(agent);
      await agent.start();
      await recorded;
      expect((await view(device.id)).capabilities).to.deep.equal({ mms: false, ussd: false, data_sms: true, call_recording: false });

      const dialled = await fx.tenant.api.post(`/devices/${device.id}/ussd`, { code: '*100#' });
      expect(dialled.status, JSON.stringify(dialled.body)).to.equal(409);
      expect(dialled.body.error.code).to.equal('device_not_capable');
      expect(await fx.gateway.services.ussd.listForDevice(fx.tenant.accountId, device.id, 10)).to.deep.equal([]);
    });
  });

  describe('when a phone never says what it can do (an older app)', () => {
    it('then it is handed MMS, data and encrypted SMS and asked for USSD as before', async () => {
      const old = await fx.taskPhone(); // a raw MQTT phone whose heartbeat has no capabilities
      await old.heartbeat();
      const mms = await fx.tenant.api.post('/mms', { phone: PHONE, subject: 'old phone' });
      const data = await fx.tenant.api.post('/sms/data', { phone: PHONE, data: 'AQID', port: 2948 });
      const encrypted = await fx.tenant.api.post('/sms/encrypted', {
        phone: await encrypt(PHONE, ALPHA),
        message: await encrypt('hi', ALPHA),
        passphrase_fingerprint: await passphraseFingerprint(ALPHA),
      });
      for (const created of [mms, data, encrypted]) expect(created.status, JSON.stringify(created.body)).to.equal(201);
      await old.until(3);
      expect(old.tasks.map((task) => task.sms_id).sort()).to.deep.equal([mms.body.id, data.body.id, encrypted.body.id].sort());
      const dialled = await fx.tenant.api.post(`/devices/${old.id}/ussd`, { code: '*100#' });
      expect(dialled.status, JSON.stringify(dialled.body)).to.equal(202);
    });
  });
});

describe('passphrase fingerprint', () => {
  it('matches the test vector in docs/encryption.md', async () => {
    expect(await passphraseFingerprint('correct horse battery staple')).to.equal('06a8fa07764c86b3');
  });
});
