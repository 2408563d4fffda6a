// The legacy family answers no null where the spec gives a member a type (a client typed after
// the spec would fail to decode it): a device whose phone has not reported its battery shows
// device_battery_state -1, one that has never connected shows last_online_date as the Unix epoch,
// and an SMS shows "" for a device or webhook that was not named. The one null is an SMS's to_sim,
// which the spec itself types "number or null". The Extended API shows the same unknowns as null.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import {
  BATTERY_NOT_REPORTED,
  deviceRow,
  heartbeatRecorded,
  legacyGet,
  legacySend,
  NEVER_ONLINE,
  simulatedFor,
} from '../support/legacy.ts';

type Schema = Record<string, any>;

/** The names of the members that are null anywhere in `value`, however deep. */
function nullMembers(value: unknown, name = '(body)'): string[] {
  if (value === null) return [name];
  if (Array.isArray(value)) return value.flatMap((item) => nullMembers(item, name));
  if (typeof value === 'object') return Object.entries(value as object).flatMap(([key, member]) => nullMembers(member, key));
  return [];
}

/** The names of the members a schema lets be null, however deep. */
function nullableMembers(schema: Schema | undefined): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const found: string[] = [];
  for (const [name, member] of Object.entries<Schema>(schema.properties ?? {})) {
    const branches: Schema[] = member.anyOf ?? member.oneOf ?? [];
    if (member.type === 'null' || (Array.isArray(member.type) && member.type.includes('null')) || branches.some((branch) => branch.type === 'null')) {
      found.push(name);
    }
    found.push(...nullableMembers(member));
  }
  if (schema.items) found.push(...nullableMembers(schema.items));
  for (const branch of [...(schema.anyOf ?? []), ...(schema.allOf ?? [])]) found.push(...nullableMembers(branch));
  return found;
}

describe('legacy API: no null where the spec gives a type', () => {
  const fx = useGateway();

  /** A registered device of the tenant: both ids and its token. */
  async function device() {
    const { device: registered, token } = await fx.registerDevice('never seen');
    return { uuid: registered.id, token, objectId: (await deviceRow(fx.gateway, fx.tenant, registered.id)).object_id };
  }

  const info = async (objectId: string) => {
    const reply = await fx.tenant.root.post('/devices/get/info', { device_id: objectId });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return reply.body;
  };

  describe('when a device has never connected', () => {
    it('then /devices/get/info answers device_battery_state -1 and last_online_date the Unix epoch, and no member is null', async () => {
      const ids = await device();
      const body = await info(ids.objectId);
      expect(body.device_battery_state).to.equal(BATTERY_NOT_REPORTED).and.to.equal(-1);
      expect(body.last_online_date).to.equal(NEVER_ONLINE).and.to.equal(new Date(0).toISOString());
      expect(nullMembers(body)).to.deep.equal([]);

      // The Extended API says the same with null, as its document declares.
      const extended = await fx.tenant.api.get(`/devices/${ids.uuid}`);
      expect(extended.body).to.include({ battery_level: null, last_seen_at: null });
    });
  });

  describe('when the phone has reported', () => {
    it('then they are its battery level and the time it was last seen: an empty battery is 0, not the -1 of "not reported"', async () => {
      const ids = await device();
      const phone = fx.track(simulatedFor(fx.gateway, { id: ids.uuid }, ids.token));
      phone.batteryLevel = 0;
      const recorded = heartbeatRecorded(fx.gateway, ids.uuid);
      const before = Date.now();
      await phone.connect();
      await recorded;

      const body = await info(ids.objectId);
      expect(body.device_battery_state).to.equal(0);
      expect(body.last_online_date).to.not.equal(NEVER_ONLINE);
      expect(Date.parse(body.last_online_date)).to.be.within(before, Date.now());
      expect(nullMembers(body)).to.deep.equal([]);
    });
  });

  describe('when an SMS waits and no device or webhook was named for it', () => {
    it('then /sms/get and GET /sms answer "" for device_id and callback_id, and null only for to_sim', async () => {
      const id = await legacySend(fx.tenant, { message: 'unassigned' });
      const read = await legacyGet(fx.tenant, id);
      expect(read).to.include({ device_id: '', callback_id: '', to_sim: null });
      expect(nullMembers(read)).to.deep.equal(['to_sim']);

      const listed = await fx.tenant.root.get('/sms?limit=10');
      expect(listed.body.sms_list).to.deep.equal([read]);
      expect(nullMembers(listed.body)).to.deep.equal(['to_sim']);
      // The Extended API shows the unassigned device as null.
      const extended = await fx.tenant.api.get('/sms?limit=10');
      expect(extended.body.data[0].device_id).to.equal(null);
    });
  });

  describe('when the OpenAPI document describes the legacy answers', () => {
    it('then no member of them may be null but an SMS\'s to_sim, and the device\'s placeholders are written in its descriptions', async () => {
      const doc = (await (await fetch(`${fx.baseUrl}/api/ext/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Schema>> };
      const legacy = Object.entries(doc.paths).filter(([path]) => !path.startsWith('/api/'));
      expect(legacy.map(([path]) => path)).to.include.members(['/sms/get', '/sms', '/devices/get/info']);
      const nullable = new Set<string>();
      for (const [, item] of legacy) {
        for (const operation of Object.values(item)) {
          for (const [status, response] of Object.entries<Schema>(operation.responses ?? {})) {
            if (status.startsWith('2')) for (const name of nullableMembers(response.content?.['application/json']?.schema)) nullable.add(name);
          }
        }
      }
      expect([...nullable]).to.deep.equal(['to_sim']);

      const device = doc.paths['/devices/get/info']!.post!.responses['200'].content['application/json'].schema as Schema;
      expect(device.properties.device_battery_state).to.include({ type: 'integer', minimum: -1 });
      expect(device.properties.device_battery_state.description).to.contain('-1 until the phone first reports it');
      expect(device.properties.last_online_date).to.include({ type: 'string', format: 'date-time' });
      expect(device.properties.last_online_date.description).to.contain(NEVER_ONLINE);
    });
  });
});
