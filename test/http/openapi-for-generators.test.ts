// What client generators (openapi-generator, Kiota, NSwag, openapi-typescript) read in the served
// documents, and what they would make of it: enumerations written as enum (a union of one-value
// constants makes no enum type), character limits said where a person reads them, parameters with
// a default optional and the ids a route refuses a request without required, the gateway's public
// address as the server, and the Twilio-compatible subset in a document of its own, which its real
// answers match.
import { expect } from 'chai';
import { Validator } from '@seriousme/openapi-schema-validator';
import { useGateway } from '../support/use-gateway.ts';
import { DocumentedAnswers, type OpenApiDocument } from '../support/documented-answers.ts';
import { createCredential, messagesPath, twilioRequest } from '../twilio/support.ts';

const PUBLIC_URL = 'https://sms.example.com/';
type Schema = Record<string, any>;
type Doc = OpenApiDocument & { servers: { url: string }[]; paths: Record<string, Record<string, Schema>> };

/** Every schema object in `value`, however deep, with where it is. */
function schemasIn(value: unknown, where = ''): [string, Schema][] {
  if (Array.isArray(value)) return value.flatMap((item, index) => schemasIn(item, `${where}/${index}`));
  if (value === null || typeof value !== 'object') return [];
  return [[where, value as Schema], ...Object.entries(value).flatMap(([key, member]) => schemasIn(member, `${where}/${key}`))];
}

describe('the OpenAPI documents, as client generators read them', () => {
  const fx = useGateway({ config: { publicUrl: PUBLIC_URL }, tenant: 'once' });
  let doc: Doc;
  let twilioDoc: Doc;

  before(async () => {
    doc = (await (await fetch(`${fx.baseUrl}/api/ext/v1/openapi.json`)).json()) as Doc;
    twilioDoc = (await (await fetch(`${fx.baseUrl}/api/ext/v1/openapi-twilio.json`)).json()) as Doc;
  });

  const operation = (path: string, method: string): Schema => doc.paths[path]![method]! as Schema;

  describe('when a value is one of a fixed list', () => {
    it('then no schema is a union of constants: each list is an enum', () => {
      const unions = schemasIn(doc).filter(([, schema]) => Array.isArray(schema.anyOf) && schema.anyOf.some((branch: Schema) => 'const' in branch));
      expect(unions.map(([where]) => where)).to.deep.equal([]);
    });

    it('then an SMS\'s status is a string enum, and a nullable enum is the enum or null', () => {
      const sms = operation('/api/ext/v1/sms/{id}', 'get').responses['200'].content['application/json'].schema;
      expect(sms.properties.status).to.include({ type: 'string' });
      expect(sms.properties.status.enum).to.include.members(['pending', 'sent', 'delivered']);
      const encoding = sms.properties.encoding;
      expect(encoding.anyOf).to.deep.equal([{ type: 'string', enum: ['gsm7', 'ucs2'] }, { type: 'null' }]);
    });

    it('then each of an SMS\'s statuses says what it means beside its value (x-enumDescriptions)', () => {
      const status = operation('/api/ext/v1/sms/{id}', 'get').responses['200'].content['application/json'].schema.properties.status;
      expect(Object.keys(status['x-enumDescriptions'])).to.have.members(status.enum);
      expect(status['x-enumDescriptions'].failed_send).to.match(/never sent/);
    });
  });

  describe('when a text is limited in characters as a person counts them', () => {
    it('then its description says the rule, and no maxLength counts code points in its place', () => {
      const limited = [...schemasIn(doc), ...schemasIn(twilioDoc)].filter(([, schema]) => typeof schema['x-maxCharacters'] === 'number');
      expect(limited.length).to.be.greaterThan(10);
      for (const [where, schema] of limited) {
        expect(schema.description, where).to.include(`at most ${schema['x-maxCharacters']} characters, counted as a person counts them`);
        expect(schema, where).to.not.have.property('maxLength');
      }
    });
  });

  describe('when a query parameter has a default', () => {
    it('then it is optional: limit on every list, the legacy offset', () => {
      const defaulted = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item).flatMap(([method, op]) =>
          ((op.parameters ?? []) as Schema[]).filter((p) => p.in === 'query' && p.schema?.default !== undefined).map((p) => ({ at: `${method} ${path} ${p.name}`, required: p.required })),
        ),
      );
      expect(defaulted.filter((p) => p.at.endsWith(' limit')).length).to.be.greaterThanOrEqual(16);
      expect(defaulted.map((p) => p.at)).to.include('get /sms offset');
      expect(defaulted.filter((p) => p.required).map((p) => p.at)).to.deep.equal([]);
    });
  });

  describe('when a legacy route refuses a request without the id of what it acts on', () => {
    it('then the document marks that id required', () => {
      for (const path of ['/devices/get/info', '/devices/edit', '/devices/del']) {
        expect(operation(path, 'post').requestBody.content['application/json'].schema.required, path).to.include('device_id');
      }
      const id = (operation('/sms/del', 'delete').parameters as Schema[]).find((p) => p.name === 'id' && p.in === 'query');
      expect(id?.required).to.equal(true);
    });
  });

  describe('when PUBLIC_URL is set', () => {
    it('then both documents name it as their server', () => {
      expect(doc.servers).to.deep.equal([{ url: 'https://sms.example.com' }]);
      expect(twilioDoc.servers).to.deep.equal([{ url: 'https://sms.example.com' }]);
    });
  });

  describe('when the Twilio-compatible subset is read from its own document', () => {
    it('then it is a valid OpenAPI 3.1 document of the five operations the gateway serves', async () => {
      const result = await new Validator().validate(twilioDoc as unknown as Record<string, unknown>);
      expect(result.errors, JSON.stringify(result.errors, null, 2)).to.satisfy((errors: unknown) => errors === undefined || (Array.isArray(errors) && errors.length === 0));
      expect(new DocumentedAnswers(twilioDoc).operations().sort()).to.deep.equal([
        'DELETE /2010-04-01/Accounts/{AccountSid}/Messages/{Sid}.json',
        'GET /2010-04-01/Accounts/{AccountSid}/Messages.json',
        'GET /2010-04-01/Accounts/{AccountSid}/Messages/{Sid}.json',
        'POST /2010-04-01/Accounts/{AccountSid}/Messages.json',
        'POST /2010-04-01/Accounts/{AccountSid}/Messages/{Sid}.json',
      ]);
    });

    it('then what each operation answers, and its errors, match the document', async () => {
      const documented = new DocumentedAnswers(twilioDoc);
      const credential = await createCredential(fx.tenant);
      const auth = { sid: credential.account_sid, token: credential.auth_token };
      const list = '/2010-04-01/Accounts/{AccountSid}/Messages.json';
      const one = '/2010-04-01/Accounts/{AccountSid}/Messages/{Sid}.json';
      const call = async (method: string, template: string, path: string, params?: Record<string, string>) => {
        const reply = await twilioRequest(fx.baseUrl, method, path, auth, params);
        const answer = { status: reply.status, headers: reply.headers, json: reply.body, text: JSON.stringify(reply.body ?? '') };
        expect(documented.problem(method, template, answer), `${method} ${path} -> ${reply.status}`).to.equal(undefined);
        return reply;
      };
      const base = messagesPath(credential.account_sid);
      const created = await call('POST', list, `${base}.json`, { To: '+79161234567', Body: 'documented', ValidityPeriod: '600' });
      expect(created.status).to.equal(201);
      const file = `${base}/${created.body.sid}.json`;
      expect((await call('GET', one, file)).status).to.equal(200);
      expect((await call('GET', list, `${base}.json?PageSize=1`)).body.messages).to.have.length(1);
      expect((await call('POST', one, file, { Status: 'canceled' })).body.status).to.equal('canceled');
      expect((await call('POST', one, file, { Status: 'sent' })).status).to.equal(400);
      expect((await call('POST', list, `${base}.json`, { Body: 'no recipient' })).status).to.equal(400);
      expect((await call('GET', list, `${base}.json?PageSize=0`)).status).to.equal(400);
      expect((await call('DELETE', one, file)).status).to.equal(204);
      expect((await call('GET', one, file)).status).to.equal(404);
    });
  });
});
