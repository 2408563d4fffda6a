// Route conditions beyond destination and priority, end to end: an SMS's category (one-time codes
// upstream at once while the rest stay with the phones), checked as a client would see it.
import { expect } from 'chai';
import { deviceTopic } from '../../broker/topics.ts';
import { useGateway } from '../support/use-gateway.ts';
import { webhookConfig } from '../support/webhooks.ts';
import { eventually } from '../support/eventually.ts';
import { rawDevice, nextMessage } from '../support/raw-device.ts';
import { TestSmsc } from '../support/test-smsc.ts';
import { LOOPBACK_PROVIDERS, smppUpstream } from '../support/smpp-upstream.ts';
import type { ApiClient } from '../support/tenant.ts';
import { applies, groupAtCreation, groupOf, HELD_FOR_UPSTREAM, onlineFor } from '../../src/modules/upstreams/routing/rules.ts';
import { connectDevice } from '../support/devices.ts';
import { UpstreamService } from '../../src/modules/upstreams/service.ts';
import { systemClock } from '../../src/common/clock.ts';
import { smsRow, updateSms } from '../support/test-data.ts';

const PHONE = '+447911123456';

describe('route conditions: the rule applies only to SMS of these categories', () => {
  const sms = { phone: PHONE, priority: 0 };

  it('holds for an SMS of one of the categories, and never for one without a category', () => {
    const rule = { target: 'phones', categories: ['otp' as const] };
    expect(applies(rule, { ...sms, category: 'otp' })).to.equal(true);
    expect(applies(rule, { ...sms, category: 'marketing' })).to.equal(false);
    expect(applies(rule, { ...sms, category: null })).to.equal(false);
    expect(applies({ target: 'phones' }, { ...sms, category: null })).to.equal(true);
  });

  it('combines with the other conditions: each must hold', () => {
    const rule = { target: 'phones', categories: ['otp' as const], prefixes: ['+1'] };
    expect(applies(rule, { ...sms, category: 'otp' })).to.equal(false);
    expect(applies(rule, { ...sms, phone: '+15005550006', category: 'otp' })).to.equal(true);
  });
});

describe('route targets: device groups, the rules alone', () => {
  const sms = { phone: PHONE, priority: 0, category: null };

  it('reads the group a target names, and none for phones or an upstream', () => {
    expect(groupOf('group:uk-sims')).to.equal('uk-sims');
    expect(groupOf('phones')).to.equal(undefined);
    expect(groupOf('00000000-0000-4000-8000-000000000000')).to.equal(undefined);
  });

  it('counts only the group\'s phones as online for a group rule, any phone for a phones rule', () => {
    const online = { any: true, groups: new Set(['other']) };
    expect(onlineFor({ target: 'group:g' }, online)).to.equal(false);
    expect(onlineFor({ target: 'group:other' }, online)).to.equal(true);
    expect(onlineFor({ target: 'phones' }, online)).to.equal(true);
  });

  it('keeps a new SMS for a group only when the first rule applying to it is the group\'s', () => {
    const rules = [{ target: 'group:uk', prefixes: ['+44'] }, { target: 'group:rest' }];
    expect(groupAtCreation(rules, sms)).to.equal('uk');
    expect(groupAtCreation(rules, { ...sms, phone: '+15005550006' })).to.equal('rest');
    expect(groupAtCreation([{ target: 'phones' }, { target: 'group:uk' }], sms)).to.equal(null);
    expect(groupAtCreation([{ target: 'group:uk', categories: ['otp'] }], sms)).to.equal(null);
  });

  it('keeps a new SMS from every phone when the first rule applying to it is an upstream\'s', () => {
    const upstreamId = '0d9c1f4e-3a52-4c1b-9b7e-2f0a6c8d4e11';
    expect(groupAtCreation([{ target: upstreamId, prefixes: ['+44'] }, { target: 'phones' }], sms)).to.equal(HELD_FOR_UPSTREAM);
    expect(groupAtCreation([{ target: upstreamId, prefixes: ['+1'] }, { target: 'phones' }], sms)).to.equal(null);
    // No device group can be named so: the claim's group condition never lets a phone take it.
    expect(HELD_FOR_UPSTREAM).to.not.match(/^[a-z0-9_-]{1,32}$/);
  });
});

describe('route conditions end to end', function () {
  this.timeout(30_000);
  // The SMSC listens on 127.0.0.1, which the outbound destination guard refuses unless allowed.
  const fx = useGateway({ config: { webhooks: webhookConfig({ allowedHosts: LOOPBACK_PROVIDERS }) } });
  let smsc: TestSmsc;

  beforeEach(async () => {
    smsc = await TestSmsc.start();
  });
  afterEach(async () => {
    await smsc.stop();
  });

  const upstream = (api: ApiClient) => smppUpstream(api, smsc);
  async function setRoutes(api: ApiClient, routes: object[]) {
    const reply = await api.request('PUT', '/routes', { routes });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return reply.body;
  }
  const status = async (id: string) => (await fx.tenant.api.get(`/sms/${id}`)).body.status as string;
  async function send(body: object) {
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, ...body });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body;
  }

  it('sends an otp SMS upstream at once while an SMS of another category, or none, stays with the online phone', async () => {
    const { device, token } = await fx.registerDevice('online');
    const phone = await rawDevice(fx.gateway.mqttPort, device.id, token);
    try {
      const id = await upstream(fx.tenant.api);
      const set = await setRoutes(fx.tenant.api, [{ target: id, categories: ['otp'] }, { target: 'phones' }]);
      expect(set.routes[0].categories).to.deep.equal(['otp']);

      const marketing = nextMessage(phone, deviceTopic(device.id, 'tasks'));
      const offer = await send({ message: 'Sale today', category: 'marketing' });
      expect(offer.category).to.equal('marketing');
      expect(JSON.parse((await marketing).toString()).sms_id).to.equal(offer.id);
      const plain = nextMessage(phone, deviceTopic(device.id, 'tasks'));
      const note = await send({ message: 'Hello' });
      expect(note).to.not.have.property('category');
      expect(JSON.parse((await plain).toString()).sms_id).to.equal(note.id);

      const code = await send({ message: 'Your code is 123456', category: 'otp' });
      await eventually('the SMSC got the code', () => smsc.submits.length === 1);
      await eventually('the code was sent upstream', async () => (await status(code.id)) === 'sent');
      const text = smsc.submits[0]!.short_message as { message?: unknown } | string;
      expect(String(typeof text === 'object' ? text.message : text)).to.contain('123456');
      // The two others are the phone's: handed to it, not to the SMSC.
      for (const other of [offer.id, note.id]) expect((await fx.tenant.api.get(`/sms/${other}`)).body.device_id).to.equal(device.id);
      expect(smsc.submits).to.have.length(1);
    } finally {
      await phone.endAsync();
    }
  });

  it('sends upstream every SMS whose first rule is the upstream\'s, though an online phone would take and send it at once', async () => {
    // A phone that acknowledges a task the moment it comes: were the SMS offered to the phones
    // before the router's first look, this phone would send some of them.
    fx.track(await connectDevice(fx.gateway, fx.tenant));
    const id = await upstream(fx.tenant.api);
    await setRoutes(fx.tenant.api, [{ target: id, categories: ['otp'] }, { target: 'phones' }]);
    const codes: { id: string }[] = [];
    for (let n = 0; n < 5; n++) codes.push(await send({ message: `Your code is 12345${n}`, category: 'otp' }));
    await eventually('every code was sent upstream', async () => {
      for (const code of codes) if ((await status(code.id)) !== 'sent') return false;
      return true;
    });
    expect(smsc.submits).to.have.length(5);
    for (const code of codes) expect((await fx.tenant.api.get(`/sms/${code.id}`)).body.device_id).to.equal(null);
    // The phone is there and takes what the routes leave to it.
    const note = await send({ message: 'Hello' });
    await eventually('the phone sent the plain one', async () => (await fx.tenant.api.get(`/sms/${note.id}`)).body.device_id !== null);
  });

  it('lets any phone take an SMS kept from the phones for routes cleared before the router looked at it, once it comes due', async () => {
    // The state a send leaves when the routes are cleared between its hold and its commit: kept
    // from every phone, never looked at, for an account without routes.
    const { upstreamRouter, dispatcher } = fx.gateway.services;
    const { id } = await send({ message: 'held' });
    // Not due yet: the router's own pass, once a second, must not look at it before the phone has
    // shown that it is kept from it (on a loaded machine connecting a phone can take that long).
    await updateSms(fx, id, { device_group: HELD_FOR_UPSTREAM, route_check_at: new Date(Date.now() + 3_600_000) });
    const phone = fx.track(await connectDevice(fx.gateway, fx.tenant));
    const tasks: string[] = [];
    phone.on('task', (task) => tasks.push(task.sms_id));
    await dispatcher.sweep();
    expect(tasks, 'kept from the phone').to.deep.equal([]);

    // Due: the router's next pass, this one or its own, releases it to the phones.
    await updateSms(fx, id, { route_check_at: new Date(Date.now() - 1_000) });
    await upstreamRouter.pass();
    expect(await smsRow(fx, id)).to.include({ device_group: null, route_rule: -1 });
    await eventually('the phone took it', () => tasks.includes(id));
  });

  it('sends upstream a scheduled SMS only once its time comes', async () => {
    const id = await upstream(fx.tenant.api);
    await setRoutes(fx.tenant.api, [{ target: id }]);
    const sendAt = new Date(Date.now() + 2_500);
    const scheduled = await send({ message: 'Tomorrow\'s reminder', send_at: sendAt.toISOString() });
    await fx.gateway.services.upstreamRouter.pass();
    expect(smsc.submits, 'nothing before send_at').to.have.length(0);
    await eventually('submitted once its time came', () => smsc.submits.length === 1, 10_000);
    expect(Date.now()).to.be.at.least(sendAt.getTime());
    await eventually('sent', async () => (await status(scheduled.id)) === 'sent');
  });

  it('shows the category on the SMS, lists by it, and takes it in a bulk send', async () => {
    const bulk = await fx.tenant.api.post('/sms/bulk', {
      messages: [{ phone: PHONE, message: 'one', category: 'transactional' }, { phone: PHONE, message: 'two' }],
    });
    expect(bulk.status, JSON.stringify(bulk.body)).to.equal(201);
    const [receipt, plain] = bulk.body.data;
    expect(receipt.category).to.equal('transactional');
    expect(plain).to.not.have.property('category');
    expect((await fx.tenant.api.get(`/sms/${receipt.id}`)).body.category).to.equal('transactional');
    const listed = (await fx.tenant.api.get('/sms?category=transactional')).body.data as { id: string }[];
    expect(listed.map((each) => each.id)).to.deep.equal([receipt.id]);
  });

  it('refuses an unknown category on a send and in a rule, naming the field and what it takes', async () => {
    const bad = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'x', category: 'urgent' });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.code).to.equal('validation_failed');
    expect(bad.body.error.message).to.equal('category must be one of: otp, transactional, marketing');
    const list = await fx.tenant.api.get('/sms?category=urgent');
    expect(list.status).to.equal(400);

    const rule = await fx.tenant.api.request('PUT', '/routes', { routes: [{ target: 'phones', categories: ['urgent'] }] });
    expect(rule.status).to.equal(400);
    expect(rule.body.error.message).to.equal('routes.0.categories.0 must be one of: otp, transactional, marketing');
    const empty = await fx.tenant.api.request('PUT', '/routes', { routes: [{ target: 'phones', categories: [] }] });
    expect(empty.status).to.equal(400);
    expect(JSON.stringify(empty.body)).to.contain('routes.0.categories');
  });
});

describe('route targets: device groups', function () {
  this.timeout(30_000);
  const fx = useGateway({ config: { webhooks: webhookConfig({ allowedHosts: LOOPBACK_PROVIDERS }) } });
  let smsc: TestSmsc;

  beforeEach(async () => {
    smsc = await TestSmsc.start();
  });
  afterEach(async () => {
    await smsc.stop();
  });

  async function setRoutes(routes: object[]) {
    const reply = await fx.tenant.api.request('PUT', '/routes', { routes });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  }
  async function setGroup(deviceId: string, group: string | null) {
    const reply = await fx.tenant.api.request('PATCH', `/devices/${deviceId}/settings`, { group });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(reply.body.group).to.equal(group);
  }
  async function send(body: object = {}) {
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'Your code is 123456', ...body });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id as string;
  }
  /** A connected phone, and every task it was handed. */
  async function phone(name: string) {
    const { device, token } = await fx.registerDevice(name);
    const client = await rawDevice(fx.gateway.mqttPort, device.id, token);
    const tasks: string[] = [];
    client.on('message', (topic, payload) => {
      if (topic === deviceTopic(device.id, 'tasks')) tasks.push(JSON.parse(payload.toString()).sms_id);
    });
    return { id: device.id as string, client, tasks };
  }
  const holder = async (smsId: string) => (await fx.tenant.api.get(`/sms/${smsId}`)).body.device_id as string | null;

  it('hands an SMS a group rule keeps only to the phones of that group, and one naming a device to that device', async () => {
    const outside = await phone('outside');
    const inside = await phone('inside');
    try {
      await setGroup(inside.id, 'g');
      await setRoutes([{ target: 'group:g' }]);
      const ids = [await send(), await send(), await send()];
      await eventually('the group phone took all three', () => ids.every((id) => inside.tasks.includes(id)));
      for (const id of ids) expect(await holder(id)).to.equal(inside.id);
      expect(outside.tasks).to.deep.equal([]);

      // A device the client named is never kept for a group.
      const named = await send({ device_id: outside.id });
      await eventually('the named phone got it', () => outside.tasks.includes(named));
      expect(outside.tasks).to.deep.equal([named]);
    } finally {
      await outside.client.endAsync();
      await inside.client.endAsync();
    }
  });

  it('moves on to the next rule when no phone of the group is online, lifting the group for a phones rule', async () => {
    const outside = await phone('outside');
    const inside = await phone('inside');
    try {
      await setGroup(inside.id, 'g');
      const upstream = await smppUpstream(fx.tenant.api, smsc);

      await inside.client.endAsync(true);
      await eventually('the group phone is offline', async () => (await fx.tenant.api.get(`/devices/${inside.id}`)).body.is_online === false);
      await setRoutes([{ target: 'group:g', skip_when_offline: true }, { target: upstream }]);
      const upstreamed = await send();
      await eventually('the SMSC got it', () => smsc.submits.length === 1);
      await eventually('sent upstream', async () => (await fx.tenant.api.get(`/sms/${upstreamed}`)).body.status === 'sent');
      expect(outside.tasks).to.deep.equal([]);

      // Next rule the account's phones: the group's restriction is lifted, and the phone outside it takes it.
      await setRoutes([{ target: 'group:g' }, { target: 'phones' }]);
      const lifted = await send();
      await eventually('the phone outside the group took it', () => outside.tasks.includes(lifted));
      expect(await holder(lifted)).to.equal(outside.id);
      expect(smsc.submits).to.have.length(1);
    } finally {
      await outside.client.endAsync();
    }
  });

  // The group's last phone leaves the group while another phone of the account stays online: the
  // SMS the group keeps moves on to the next rule, and that phone takes it.
  const groupPhoneGoes: [string, (inside: Awaited<ReturnType<typeof phone>>) => Promise<unknown>][] = [
    ['goes offline', (inside) => inside.client.endAsync(true)],
    ['is moved out of the group while online', (inside) => setGroup(inside.id, null)],
  ];
  for (const [how, leave] of groupPhoneGoes) {
    it(`moves the SMS a group keeps on when the group's last phone ${how}, another phone staying online`, async () => {
      const outside = await phone('outside');
      const inside = await phone('inside');
      try {
        await setGroup(inside.id, 'g');
        // The group phone has no room: the SMS waits, kept for the group.
        await fx.tenant.api.request('PATCH', `/devices/${inside.id}/settings`, { can_send_sms: false });
        await setRoutes([{ target: 'group:g' }, { target: 'phones' }]);
        const id = await send();
        // The router has kept it for the group (the API does not show the restriction; the row does).
        await eventually('kept for the group', async () => {
          const row = await smsRow(fx, id);
          return row?.route_rule === 0 && row.device_group === 'g' && row.status === 'pending';
        });
        await leave(inside);
        await eventually('the phone outside the group took it', () => outside.tasks.includes(id), 10_000);
        expect(inside.tasks).to.deep.equal([]);
      } finally {
        await outside.client.endAsync();
        await inside.client.endAsync();
      }
    });
  }

  it('takes an SMS back from a phone outside the group that had not acknowledged it when a group rule comes to keep it, and the group\'s phone sends it', async () => {
    const { device: outsideDevice, token: outsideToken } = await fx.registerDevice('outside');
    const outside = await rawDevice(fx.gateway.mqttPort, outsideDevice.id, outsideToken);
    await outside.subscribeAsync(deviceTopic(outsideDevice.id, 'revoke'), { qos: 1 });
    const { device: insideDevice, token: insideToken } = await fx.registerDevice('inside');
    await setGroup(insideDevice.id, 'g');
    try {
      // The group's phone is not connected yet: the group rule keeps the SMS for it all the same.
      await setRoutes([{ target: 'phones', after_seconds: 1 }, { target: 'group:g', skip_when_offline: false }]);
      const task = nextMessage(outside, deviceTopic(outsideDevice.id, 'tasks'));
      const smsId = await send();
      expect(JSON.parse((await task).toString()).sms_id).to.equal(smsId);
      const revoke = nextMessage(outside, deviceTopic(outsideDevice.id, 'revoke'), 10_000);
      expect(JSON.parse((await revoke).toString()).sms_id).to.equal(smsId);
      await eventually('back in the pool, kept for the group', async () => (await holder(smsId)) === null);

      // A late acknowledgement from the phone outside is refused: the SMS is no longer its own.
      const refused = nextMessage(outside, deviceTopic(outsideDevice.id, 'revoke'));
      await outside.publishAsync(deviceTopic(outsideDevice.id, 'status'), JSON.stringify({ sms_id: smsId, status: 'processing' }), { qos: 2 });
      expect(JSON.parse((await refused).toString()).sms_id).to.equal(smsId);

      const inside = await rawDevice(fx.gateway.mqttPort, insideDevice.id, insideToken);
      try {
        const handed = await nextMessage(inside, deviceTopic(insideDevice.id, 'tasks'));
        expect(JSON.parse(handed.toString()).sms_id).to.equal(smsId);
        expect(await holder(smsId)).to.equal(insideDevice.id);
      } finally {
        await inside.endAsync();
      }
    } finally {
      await outside.endAsync();
    }
  });

  it('leaves an SMS with the phone outside the group that acknowledged it', async () => {
    const { device, token } = await fx.registerDevice('outside');
    const outside = await rawDevice(fx.gateway.mqttPort, device.id, token);
    await outside.subscribeAsync(deviceTopic(device.id, 'revoke'), { qos: 1 });
    const revokes: string[] = [];
    outside.on('message', (topic, payload) => {
      if (topic === deviceTopic(device.id, 'revoke')) revokes.push(JSON.parse(payload.toString()).sms_id);
    });
    const { device: insideDevice } = await fx.registerDevice('inside');
    await setGroup(insideDevice.id, 'g');
    try {
      await setRoutes([{ target: 'phones', after_seconds: 1 }, { target: 'group:g', skip_when_offline: false }]);
      const task = nextMessage(outside, deviceTopic(device.id, 'tasks'));
      const smsId = await send();
      await task;
      await outside.publishAsync(deviceTopic(device.id, 'status'), JSON.stringify({ sms_id: smsId, status: 'processing' }), { qos: 2 });
      // Acknowledged: the router looks no more (before its first look, or at the rule's wait's end).
      await eventually('left with the phone', async () => {
        const row = await smsRow(fx, smsId);
        return row?.status === 'processing' && row.route_check_at === null && row.device_id === device.id;
      }, 10_000);
      await outside.publishAsync(deviceTopic(device.id, 'status'), JSON.stringify({ sms_id: smsId, status: 'sent' }), { qos: 2 });
      await eventually('sent by the phone outside the group', async () => (await fx.tenant.api.get(`/sms/${smsId}`)).body.status === 'sent');
      expect(revokes).to.deep.equal([]);
    } finally {
      await outside.endAsync();
    }
  });

  it('hands an SMS a group with no device keeps for good to any phone once the routes no longer name the group', async () => {
    const outside = await phone('outside');
    try {
      await setRoutes([{ target: 'group:nobody-yet', skip_when_offline: false }]);
      const id = await send();
      await eventually('kept for the group', async () => {
        const row = await smsRow(fx, id);
        return row?.route_rule === 0 && row.device_group === 'nobody-yet';
      });
      expect(outside.tasks).to.deep.equal([]);
      await setRoutes([]);
      await eventually('the phone took it', () => outside.tasks.includes(id));
    } finally {
      await outside.client.endAsync();
    }
  });

  it('hands them to any phone too when the routes are cleared where no router hears it (a command)', async () => {
    const outside = await phone('outside');
    try {
      await setRoutes([{ target: 'group:nobody-yet', skip_when_offline: false }]);
      const id = await send();
      // Once the router looked (route_rule set): before it, a router not yet told of the change
      // would keep it for the group again, until its next reread of the routes.
      await eventually('kept for the group', async () => {
        const row = await smsRow(fx, id);
        return row?.route_rule === 0 && row.device_group === 'nobody-yet';
      });
      // The upstreams service as `sms-gateway routes clear` makes it: no router of this process is told.
      const { db, secrets, upstreamLinks } = fx.gateway.services;
      const asCommand = new UpstreamService(db, secrets, upstreamLinks, systemClock, { routesChanged: () => undefined, upstreamChanged: async () => undefined });
      await asCommand.setRoutes(fx.tenant.accountId, []);
      await eventually('the phone took it', () => outside.tasks.includes(id));
    } finally {
      await outside.client.endAsync();
    }
  });

  it('validates group names on devices and in routes; a group with no device yet is allowed', async () => {
    const { device } = await fx.registerDevice('phone');
    const bad = await fx.tenant.api.request('PATCH', `/devices/${device.id}/settings`, { group: 'UK Sims' });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.message).to.equal('group is not in the expected form: 1-32 lowercase letters, digits, "-" or "_", starting with a letter or digit');
    expect((await fx.tenant.api.get(`/devices/${device.id}`)).body.group).to.equal(null);
    await setGroup(device.id, 'uk-sims');
    await setGroup(device.id, null);

    const target = await fx.tenant.api.request('PUT', '/routes', { routes: [{ target: 'group:UK' }] });
    expect(target.status).to.equal(400);
    expect(target.body.error.details[0].field).to.equal('routes.0.target');
    expect(target.body.error.message).to.contain('after "group:", 1-32 lowercase letters');
    await setRoutes([{ target: 'group:nobody-yet', after_seconds: 30 }, { target: 'phones' }]);
    expect((await fx.tenant.api.get('/routes')).body.routes[0]).to.deep.equal({ target: 'group:nobody-yet', after_seconds: 30 });
  });
});
