// GET /api/ext/v1/openapi.json: an OpenAPI 3.1 document, generated from the schemas in use,
// that validates and matches the routes the gateway serves.
//
// The served routes are read from the router the running gateway actually mounted (captured as
// Koa takes its middleware), and cross-checked over HTTP: every documented operation answers
// (401 without a key, not 404/405), and every other method on a documented path is a 405 whose
// Allow header lists exactly the documented methods.
import { expect } from 'chai';
import Router from '@koa/router';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Gateway } from '../../src/gateway.ts';
import { PERMISSIONS, type Permission } from '../../src/modules/api-keys/permissions.ts';
import { startGateway } from '../support/gateway.ts';
import { useGateway } from '../support/use-gateway.ts';
import { ApiClient } from '../support/tenant.ts';
import { UNKNOWN_ID } from '../support/expectations.ts';

const PREFIX = '/api/ext/v1';
const DOCUMENT = `${PREFIX}/openapi.json`;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const PROBED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

interface Operation {
  operationId: string;
  'x-permission'?: Permission;
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, unknown> } };

/**
 * Starts a gateway and returns the routers it mounted: every router whose dispatch middleware is
 * built (Router#routes() builds it through Router#middleware()) is recorded as it happens.
 */
async function startGatewayCapturingRouters(): Promise<{ gateway: Gateway; routers: Router[] }> {
  const routers = new Set<Router>();
  const original = Router.prototype.middleware;
  Router.prototype.middleware = function capture(this: Router) {
    routers.add(this);
    return original.call(this);
  };
  try {
    return { gateway: await startGateway(), routers: [...routers] };
  } finally {
    Router.prototype.middleware = original;
  }
}

/** Served paths that are not API operations: the document itself, the reference page, the agent download (fetched with curl by the install line), operations. */
const NOT_API = (path: string) => path === DOCUMENT || path === `${PREFIX}/openapi-twilio.json` || path.startsWith('/docs') || path.startsWith('/agent/') || path === '/' || path.startsWith('/panel/') || ['/healthz', '/readyz', '/metrics'].includes(path);

/** "METHOD /path/{param}" for every API route the routers serve (both families). */
function servedOperations(routers: Router[]): string[] {
  const served = new Set<string>();
  for (const router of routers) {
    for (const layer of router.stack) {
      if (typeof layer.path !== 'string' || NOT_API(layer.path)) continue;
      const path = layer.path.replace(/:(\w+)/g, '{$1}');
      for (const method of layer.methods) if (method !== 'HEAD' && method !== 'OPTIONS') served.add(`${method} ${path}`);
    }
  }
  return [...served].sort();
}

function documentedOperations(doc: Doc): string[] {
  const documented: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) if (item[method]) documented.push(`${method.toUpperCase()} ${path}`);
  }
  return documented.sort();
}

/** A concrete URL path for a templated one. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, UNKNOWN_ID);

describe('GET /api/ext/v1/openapi.json', () => {
  let routers: Router[];
  let doc: Doc;
  const fx = useGateway({
    start: async () => {
      const started = await startGatewayCapturingRouters();
      routers = started.routers;
      return started.gateway;
    },
  });

  before(async () => {
    const reply = await new ApiClient(`http://127.0.0.1:${fx.gateway.httpPort}`, undefined).get(DOCUMENT);
    expect(reply.status).to.equal(200);
    doc = reply.body;
  });

  describe('when fetched without a key', () => {
    it('then it answers 200 with a JSON document', async () => {
      const reply = await new ApiClient(`http://127.0.0.1:${fx.gateway.httpPort}`, undefined).get(DOCUMENT);
      expect(reply.status).to.equal(200);
      expect(reply.headers.get('content-type')).to.match(/^application\/json/);
      expect(reply.body).to.deep.equal(doc);
    });

    it('then the document is a valid OpenAPI 3.1 document', async () => {
      expect(doc.openapi).to.match(/^3\.1\.\d+$/);
      const validator = new Validator();
      const result = await validator.validate(doc as unknown as Record<string, unknown>);
      expect(result.errors, JSON.stringify(result.errors, null, 2)).to.satisfy((errors: unknown) => errors === undefined || (Array.isArray(errors) && errors.length === 0));
      expect(result.valid).to.equal(true);
      expect(validator.version).to.equal('3.1');
    });
  });

  describe('when compared with the routes the server serves', () => {
    it('then the router was captured and serves Extended API routes', () => {
      expect(servedOperations(routers)).to.include.members(['POST /api/ext/v1/sms', 'PATCH /api/ext/v1/devices/{id}/settings']);
    });

    it('then the documented operations are exactly the served ones, but for the Twilio-compatible API and MCP', () => {
      // The Twilio-compatible API is Twilio's own interface (form-encoded, HTTP Basic with the
      // AccountSid), described in a document of its own (/api/ext/v1/openapi-twilio.json, held to
      // these routes by test/http/openapi-for-generators.test.ts); the MCP endpoint speaks
      // JSON-RPC as the Model Context Protocol defines it (docs/api-clients.md says why it has none);
      // upstream providers post their callbacks in Twilio's callback format, signed (docs/routes.md).
      const twilio = (operation: string) => operation.split(' ')[1]!.startsWith('/2010-04-01/');
      const mcp = (operation: string) => operation === 'POST /api/ext/v1/mcp';
      const provider = (operation: string) => operation.split(' ')[1]!.startsWith('/api/upstream/v1/');
      const served = servedOperations(routers);
      expect(documentedOperations(doc)).to.deep.equal(served.filter((operation) => !twilio(operation) && !mcp(operation) && !provider(operation)));
      expect(served.filter(provider)).to.deep.equal(['POST /api/upstream/v1/{id}/twilio/incoming', 'POST /api/upstream/v1/{id}/twilio/status']);
      expect(served.filter(mcp)).to.deep.equal(['POST /api/ext/v1/mcp']);
      expect(served.filter(twilio)).to.deep.equal([
        'DELETE /2010-04-01/Accounts/{accountSid}/Messages/{file}',
        'GET /2010-04-01/Accounts/{accountSid}/Messages.json',
        'GET /2010-04-01/Accounts/{accountSid}/Messages/{file}',
        'POST /2010-04-01/Accounts/{accountSid}/Messages.json',
        'POST /2010-04-01/Accounts/{accountSid}/Messages/{file}',
      ]);
    });

    it('then every documented operation answers (401 without a key), never 404 or 405', async () => {
      for (const operation of documentedOperations(doc)) {
        const [method, path] = operation.split(' ') as [string, string];
        const reply = await new ApiClient(fx.tenant.root.baseUrl, undefined).request(method, concrete(path), method === 'GET' || method === 'DELETE' ? undefined : {});
        // Logging in needs no key: an empty login is judged as a login (400); the panel's first
        // question, whether anyone is signed in, is answered to anyone (200, signed_in false).
        const open: Record<string, number> = { 'POST /api/ext/v1/session': 400, 'GET /api/ext/v1/session/status': 200 };
        expect(reply.status, operation).to.equal(open[operation] ?? 401);
      }
    });

    it('then every other method on a documented path is a 405 whose Allow lists exactly the documented methods', async () => {
      for (const [path, item] of Object.entries(doc.paths)) {
        const documented = HTTP_METHODS.filter((method) => item[method]).map((method) => method.toUpperCase());
        for (const method of PROBED_METHODS.filter((m) => !documented.includes(m))) {
          const reply = await fx.tenant.root.request(method, concrete(path), method === 'GET' ? undefined : {});
          expect(reply.status, `${method} ${path}`).to.equal(405);
          expect(reply.body.error.code).to.equal('method_not_allowed');
          const allow = (reply.headers.get('allow') ?? '').split(',').map((m) => m.trim()).filter((m) => m && m !== 'HEAD' && m !== 'OPTIONS');
          expect(allow, `Allow of ${path}`).to.have.members(documented);
        }
      }
    });

    it('then every path parameter of a documented path is declared, and required', () => {
      for (const [path, item] of Object.entries(doc.paths)) {
        const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
        for (const method of HTTP_METHODS) {
          const operation = item[method];
          if (!operation) continue;
          const declared = (operation.parameters ?? []).filter((p) => p.in === 'path');
          expect(declared.map((p) => p.name), `${method} ${path}`).to.have.members(names);
          for (const parameter of declared) expect(parameter.required, `${method} ${path} ${parameter.name}`).to.equal(true);
        }
      }
    });
  });

  describe('when an operation names its permission (x-permission)', () => {
    it('then a key without that permission gets 403, and a key with only it does not', async () => {
      const operations = documentedOperations(doc);
      for (const operation of operations) {
        const [method, path] = operation.split(' ') as [string, string];
        const permission = doc.paths[path]![method.toLowerCase()]!['x-permission'];
        // A user's own session endpoints (logging in, out) take a session cookie, and a phone's
        // upload its device credentials, not a key.
        if (['public', 'session', 'admin', 'device'].includes(permission as string)) continue;
        expect(permission, `${operation} names its permission`).to.be.oneOf([...PERMISSIONS]);
        const body = method === 'GET' || method === 'DELETE' ? undefined : {};
        const without = new ApiClient(fx.tenant.root.baseUrl, (await fx.keyWith(PERMISSIONS.filter((p) => p !== permission))).key);
        expect((await without.request(method, concrete(path), body)).status, `${operation} without ${permission}`).to.equal(403);
        const only = new ApiClient(fx.tenant.root.baseUrl, (await fx.keyWith([permission!])).key);
        const streams = Boolean(doc.paths[path]![method.toLowerCase()]!.responses['200']?.content?.['text/event-stream']);
        const status = streams ? await streamStatus(`${fx.tenant.root.baseUrl}${concrete(path)}`, only.key!) : (await only.request(method, concrete(path), body)).status;
        expect(status, `${operation} with only ${permission}`).to.not.be.oneOf([401, 403]);
      }
    });
  });

  describe('when real answers are checked against the documented response schemas', () => {
    it('then they validate', async () => {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      // The error answers' schema is the one component the document shares: given once, by its reference.
      ajv.addSchema({ components: doc.components }, 'document');
      const check = (operation: Operation, status: number, body: unknown) => {
        const documented = operation.responses[String(status)]?.content?.['application/json']?.schema as { $ref?: string } | undefined;
        const schema = documented?.$ref ? { $ref: `document${documented.$ref}` } : documented;
        expect(schema, `${operation.operationId} documents ${status}`).to.not.equal(undefined);
        const validate = ajv.compile(schema as object);
        expect(validate(body), `${operation.operationId} ${status}: ${JSON.stringify(validate.errors)}`).to.equal(true);
      };
      const op = (path: string, method: string) => doc.paths[`${PREFIX}${path}`]![method]!;

      const { device } = await fx.registerDevice();
      const registered = await fx.tenant.api.post('/devices', { name: 'documented' });
      check(op('/devices', 'post'), 201, registered.body);
      check(op('/devices', 'get'), 200, (await fx.tenant.api.get('/devices')).body);
      check(op('/devices/{id}', 'get'), 200, (await fx.tenant.api.get(`/devices/${device.id}`)).body);
      check(op('/devices/{id}/settings', 'patch'), 200, (await fx.tenant.api.patch(`/devices/${device.id}/settings`, { name_custom: 'x' })).body);
      const sms = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'x' });
      check(op('/sms', 'post'), 201, sms.body);
      check(op('/sms', 'get'), 200, (await fx.tenant.api.get('/sms')).body);
      check(op('/sms/{id}', 'get'), 200, (await fx.tenant.api.get(`/sms/${sms.body.id}`)).body);
      // Refusals too: the validator's, and a service's own, whose details the route places (`in`).
      check(op('/sms', 'post'), 400, (await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'x', extra: 1 })).body);
      check(op('/sms', 'post'), 400, (await fx.tenant.api.post('/sms', { phone: 'not a number', message: 'x' })).body);
    });
  });
});

/** The status an event stream answers with; the stream, which would never end, is closed at once. */
async function streamStatus(url: string, key: string): Promise<number> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` }, signal: abort.signal });
  abort.abort();
  return response.status;
}
