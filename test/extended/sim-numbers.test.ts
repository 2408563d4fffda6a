// Each SIM's own phone number: the phone reports it in its heartbeat (sim_cards[].phone_number),
// the owner may set it per SIM slot (PATCH /devices/{id}/settings sim_numbers), and the owner's
// wins. GET /devices and GET /devices/{id} show each SIM's effective number and where it comes
// from. A malformed number from the phone is dropped for that SIM alone, counted and logged; a
// malformed one from the owner is a 400 naming the field.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { registerDevice } from '../support/tenant.ts';
import { topic, type RawClient } from '../support/mqtt.ts';
import { expectDevice, expectError } from '../support/expectations.ts';
import { heartbeatRecorded } from '../support/legacy.ts';
import { simulatedNumber } from '../../src/simulator/sim-numbers.ts';

const REJECTED = 'device_messages_rejected_total';
const PHONE_SIM_0 = '+79165550001';
const PHONE_SIM_1 = '+79165550002';
const OWNER_SIM_0 = '+79035550003';
const TWO_SIMS = [
  { index: 0, name_operator: 'MTS', phone_number: PHONE_SIM_0 },
  { index: 1, name_operator: 'Beeline', phone_number: PHONE_SIM_1 },
];

describe('SIM numbers: reported by the phone, set by the owner', () => {
  const fx = useGateway({ config: { defaultPhoneRegion: 'RU' } });
  let phone: { id: string; mqtt: RawClient };

  beforeEach(async () => {
    const { device, token } = await fx.registerDevice('two-sim phone');
    phone = { id: device.id, mqtt: await fx.clients.device(device.id, token) };
  });

  /** QoS 2: applied once the publish completes. */
  const heartbeat = (simCards: object[], battery = 64) =>
    phone.mqtt.publish(topic(phone.id, 'heartbeat'), JSON.stringify({ battery_level: battery, is_charging: false, sim_cards: simCards }));
  const read = async (id = phone.id) => {
    const reply = await fx.tenant.api.get(`/devices/${id}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expectDevice(reply.body, { queue: true });
    return reply.body;
  };
  const listed = async () => {
    const reply = await fx.tenant.api.get('/devices');
    expect(reply.status).to.equal(200);
    const device = reply.body.data.find((each: { id: string }) => each.id === phone.id);
    expectDevice(device);
    return device;
  };
  const patch = (body: unknown, id = phone.id, api = fx.tenant.api) => api.patch(`/devices/${id}/settings`, body);
  const sim = (index: number, name: string, phone_number: string | null, phone_number_source: 'owner' | 'device' | null) => ({
    index,
    name_operator: name,
    phone_number,
    phone_number_source,
  });

  it('when no heartbeat said a number and the owner set none, then each SIM shows phone_number null, source null', async () => {
    await heartbeat([{ index: 0, name_operator: 'MTS' }]);
    expect((await read()).sim_cards).to.deep.equal([sim(0, 'MTS', null, null)]);
    expect((await read()).sim_numbers).to.deep.equal({});
  });

  it('when a heartbeat reports each SIM\'s number, then GET /devices/{id} and GET /devices show them with source "device"', async () => {
    await heartbeat(TWO_SIMS);
    const expected = [sim(0, 'MTS', PHONE_SIM_0, 'device'), sim(1, 'Beeline', PHONE_SIM_1, 'device')];
    expect((await read()).sim_cards).to.deep.equal(expected);
    expect((await listed()).sim_cards).to.deep.equal(expected);
  });

  it('when the owner sets a SIM\'s number, then it wins over the phone\'s (source "owner"), a later heartbeat does not overwrite it, and null clears back to the phone\'s', async () => {
    await heartbeat(TWO_SIMS);
    const set = await patch({ sim_numbers: { '0': OWNER_SIM_0 } });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expectDevice(set.body, { queue: true });
    expect(set.body.sim_cards).to.deep.equal([sim(0, 'MTS', OWNER_SIM_0, 'owner'), sim(1, 'Beeline', PHONE_SIM_1, 'device')]);
    expect(set.body.sim_numbers).to.deep.equal({ '0': OWNER_SIM_0 });

    await heartbeat(TWO_SIMS, 50);
    const after = await read();
    expect(after.battery_level).to.equal(50);
    expect(after.sim_cards[0]).to.deep.equal(sim(0, 'MTS', OWNER_SIM_0, 'owner'));
    expect((await listed()).sim_cards[0]).to.deep.equal(sim(0, 'MTS', OWNER_SIM_0, 'owner'));

    const cleared = await patch({ sim_numbers: { '0': null } });
    expect(cleared.status, JSON.stringify(cleared.body)).to.equal(200);
    expect(cleared.body.sim_cards[0]).to.deep.equal(sim(0, 'MTS', PHONE_SIM_0, 'device'));
    expect(cleared.body.sim_numbers).to.deep.equal({});
  });

  it('when the owner sets a number for a SIM whose phone knows none, then it shows with source "owner"; slots not sent stay as they were', async () => {
    await heartbeat([{ index: 0, name_operator: 'MTS' }, { index: 1, name_operator: 'Beeline' }]);
    await patch({ sim_numbers: { '1': PHONE_SIM_1 } });
    const reply = await patch({ sim_numbers: { '0': OWNER_SIM_0 } });
    expect(reply.body.sim_cards).to.deep.equal([sim(0, 'MTS', OWNER_SIM_0, 'owner'), sim(1, 'Beeline', PHONE_SIM_1, 'owner')]);
    expect(reply.body.sim_numbers).to.deep.equal({ '0': OWNER_SIM_0, '1': PHONE_SIM_1 });
  });

  it('when the owner gives a number in national form or with spaces, then it is stored in E.164, read in DEFAULT_PHONE_REGION', async () => {
    await heartbeat([{ index: 0, name_operator: 'MTS' }]);
    const reply = await patch({ sim_numbers: { '0': '8 (903) 555-00-03' } });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(reply.body.sim_numbers).to.deep.equal({ '0': OWNER_SIM_0 });
    expect(reply.body.sim_cards[0]).to.deep.equal(sim(0, 'MTS', OWNER_SIM_0, 'owner'));
  });

  for (const bad of ['not a number', '+1', '12345678901234567890']) {
    it(`when the owner sends sim_numbers.0 = ${JSON.stringify(bad)}, then it is a 400 naming the field, and nothing changes`, async () => {
      await patch({ sim_numbers: { '1': PHONE_SIM_1 } });
      const reply = await patch({ sim_numbers: { '0': bad, '1': null }, record_calls: true });
      expectError(reply, 400, 'validation_failed');
      expect(reply.body.error.message).to.contain('sim_numbers.0');
      expect(reply.body.error.details).to.deep.equal([{ field: 'sim_numbers.0', in: 'body', message: reply.body.error.message }]);
      expect(await read()).to.deep.include({ sim_numbers: { '1': PHONE_SIM_1 }, record_calls: false });
    });
  }

  for (const body of [{ sim_numbers: { '8': OWNER_SIM_0 } }, { sim_numbers: { first: OWNER_SIM_0 } }, { sim_numbers: { '0': 79035550003 } }, { sim_numbers: [OWNER_SIM_0] }]) {
    it(`when the owner sends ${JSON.stringify(body)}, then it is a 400 naming sim_numbers`, async () => {
      const reply = await patch(body);
      expectError(reply, 400, 'validation_failed');
      expect(JSON.stringify(reply.body.error)).to.contain('sim_numbers');
    });
  }

  for (const bad of ['', 'unknown', '89165550001', '+7 916']) {
    it(`when a heartbeat reports phone_number ${JSON.stringify(bad)}, then that SIM shows none, the drop is counted, and the rest of the heartbeat applies`, async () => {
      const counted = fx.gateway.services.metrics.value(REJECTED, { reason: 'invalid_field' });
      await heartbeat([{ index: 0, name_operator: 'MTS', phone_number: bad }, TWO_SIMS[1]!], 37);
      expect(fx.gateway.services.metrics.value(REJECTED, { reason: 'invalid_field' })).to.equal(counted + 1);
      const device = await read();
      expect(device.battery_level).to.equal(37);
      expect(device.sim_cards).to.deep.equal([sim(0, 'MTS', null, null), sim(1, 'Beeline', PHONE_SIM_1, 'device')]);
      expect(phone.mqtt.closed).to.equal(false);
    });
  }

  it('when a heartbeat reports a number with spaces in international form, then it is stored in E.164', async () => {
    await heartbeat([{ index: 0, name_operator: 'MTS', phone_number: '+7 916 555-00-01' }]);
    expect((await read()).sim_cards).to.deep.equal([sim(0, 'MTS', PHONE_SIM_0, 'device')]);
  });

  it('when a simulated phone with two SIMs sends its heartbeat, then each SIM shows a number of its own, reported by the device', async () => {
    const simulated = await fx.connectDevice({ simCards: [{ index: 0, name_operator: 'Sim A' }, { index: 1, name_operator: 'Sim B' }] });
    const recorded = heartbeatRecorded(fx.gateway, simulated.id);
    await simulated.heartbeat();
    await recorded;
    expect((await read(simulated.id)).sim_cards).to.deep.equal([
      sim(0, 'Sim A', simulatedNumber(simulated.id, 0), 'device'),
      sim(1, 'Sim B', simulatedNumber(simulated.id, 1), 'device'),
    ]);
    expect(simulatedNumber(simulated.id, 0)).to.not.equal(simulatedNumber(simulated.id, 1));
  });

  it("when the owner sets a number on another account's device, then it is a 404 device_not_found and that device is left unchanged", async () => {
    const other = await fx.newTenant();
    const theirs = (await registerDevice(fx.gateway, other)).device;
    expectError(await patch({ sim_numbers: { '0': OWNER_SIM_0 } }, theirs.id), 404, 'device_not_found');
    expect((await other.api.get(`/devices/${theirs.id}`)).body.sim_numbers).to.deep.equal({});
  });
});
