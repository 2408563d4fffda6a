// The Extended API answers null for what is not known yet, and its OpenAPI document says so: an
// SMS's device_id is null until a phone claims it (so the 201 of POST /sms without device_id
// always shows null), a device's battery_level and last_seen_at until the phone first reports.
// Each such member is declared nullable, with a description that says when it is null, so a typed
// client generated from the document decodes every answer.
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { useGateway } from '../support/use-gateway.ts';
import { heartbeatRecorded, simulatedFor } from '../support/legacy.ts';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const PREFIX = '/api/ext/v1';
const PHONE = '+79161234567';

type Schema = Record<string, any>;
type Doc = { paths: Record<string, Record<string, Schema>> };

const isNullable = (member: Schema) =>
  member.type === 'null' ||
  (Array.isArray(member.type) && member.type.includes('null')) ||
  [...(member.anyOf ?? []), ...(member.oneOf ?? [])].some((branch: Schema) => branch.type === 'null');

/** Every nullable member of `schema`, however deep, as [name, its schema]. */
function nullableMembers(schema: Schema | undefined): [string, Schema][] {
  if (!schema || typeof schema !== 'object') return [];
  const found: [string, Schema][] = [];
  for (const [name, member] of Object.entries<Schema>(schema.properties ?? {})) {
    if (isNullable(member)) found.push([name, member]);
    found.push(...nullableMembers(member));
  }
  if (schema.items) found.push(...nullableMembers(schema.items));
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) found.push(...nullableMembers(branch));
  return found;
}

describe('Extended API: members that are null until known', () => {
  const fx = useGateway();
  let doc: Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);

  before(async () => {
    doc = (await (await fetch(`${fx.baseUrl}${PREFIX}/openapi.json`)).json()) as Doc;
  });

  /** The documented JSON schema of an answer. */
  const answerSchema = (path: string, method: string, status: number): Schema =>
    doc.paths[`${PREFIX}${path}`]![method]!.responses[String(status)].content['application/json'].schema;

  /** The body validates against the documented schema of its answer. */
  function expectDocumented(body: unknown, path: string, method: string, status: number): void {
    const validate = ajv.compile(answerSchema(path, method, status));
    expect(validate(body), `${method.toUpperCase()} ${path} ${status}: ${JSON.stringify(validate.errors)}`).to.equal(true);
  }

  describe('when POST /sms names no device', () => {
    it('then the 201 answers device_id null, which the document declares nullable and explains', async () => {
      const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'anyone' });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.device_id).to.equal(null);
      expectDocumented(created.body, '/sms', 'post', 201);

      const member = answerSchema('/sms', 'post', 201).properties.device_id;
      expect(isNullable(member), 'device_id is nullable').to.equal(true);
      expect(member.description).to.contain('null until a phone claims it');
      expect(member.description).to.contain('the 201 of POST /sms without device_id always shows null');
    });

    it('then once a phone claims it, reading it again shows that phone', async () => {
      const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'claimed later' });
      expect(created.body.device_id).to.equal(null);
      const phone = await fx.taskPhone();
      await phone.until(1);
      expect(phone.tasks.map((task) => task.sms_id)).to.deep.equal([created.body.id]);

      const read = await fx.tenant.api.get(`/sms/${created.body.id}`);
      expect(read.body.device_id).to.equal(phone.id);
      expectDocumented(read.body, '/sms/{id}', 'get', 200);
    });
  });

  describe('when POST /sms names a device', () => {
    it('then the 201 answers that device at once', async () => {
      const { device } = await fx.registerDevice();
      const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'named', device_id: device.id });
      expect(created.body.device_id).to.equal(device.id);
    });
  });

  describe('when a device has never reported', () => {
    it('then battery_level and last_seen_at are null, declared nullable and explained, and are known after its first heartbeat', async () => {
      const { device, token } = await fx.registerDevice();
      const before = await fx.tenant.api.get(`/devices/${device.id}`);
      expect(before.body).to.include({ battery_level: null, last_seen_at: null });
      expectDocumented(before.body, '/devices/{id}', 'get', 200);
      const schema = answerSchema('/devices/{id}', 'get', 200);
      for (const name of ['battery_level', 'last_seen_at']) {
        expect(isNullable(schema.properties[name]), `${name} is nullable`).to.equal(true);
      }
      expect(schema.properties.battery_level.description).to.contain('null until the phone\'s first heartbeat reports it');
      expect(schema.properties.last_seen_at.description).to.contain('null until it first does');

      const phone = fx.track(simulatedFor(fx.gateway, device, token));
      phone.batteryLevel = 0;
      const recorded = heartbeatRecorded(fx.gateway, device.id);
      await phone.connect();
      await recorded;
      const after = await fx.tenant.api.get(`/devices/${device.id}`);
      expect(after.body.battery_level, 'an empty battery is 0, not null').to.equal(0);
      expect(after.body.last_seen_at).to.be.a('string');
      expectDocumented(after.body, '/devices/{id}', 'get', 200);
    });
  });

  describe('when the document declares members of Extended API answers nullable', () => {
    it('then each one\'s description says when it is null', () => {
      const silent: string[] = [];
      for (const [path, item] of Object.entries(doc.paths)) {
        if (!path.startsWith('/api/')) continue;
        for (const [method, operation] of Object.entries(item)) {
          for (const [status, response] of Object.entries<Schema>(operation.responses ?? {})) {
            for (const [name, member] of nullableMembers(response.content?.['application/json']?.schema)) {
              if (!/\bnull\b/.test(member.description ?? '')) silent.push(`${method.toUpperCase()} ${path} ${status}: ${name}`);
            }
          }
        }
      }
      expect(silent).to.deep.equal([]);
    });
  });
});
