// Every route the gateway serves, swept with hostile input: for each one, bodies that are not JSON
// or not an object, each body field of a wrong type or out of range or unstorable, path
// parameters that are not ids (or another account's), query values that cannot be read, repeated
// or unknown, another Content-Type, no body. The routes and their schemas are read from the
// gateway's own OpenAPI document (which a test holds equal to what is mounted), so a route added
// later is swept with no line written for it; the Twilio-compatible API and the MCP endpoint,
// which the document leaves out, are added by hand. Never a 5xx, never a connection dropped:
// every refusal is a 4xx in its family's error shape; input that breaks what a route declares
// (another account's id, an unknown field, limit=1e309) is never taken; and the gateway is
// healthy afterwards. Every answer, refusals and successes alike, is also held to the document of
// its operation (status, body schema, error code: test/support/documented-answers.ts), the
// Twilio-compatible API's to its own document, so that what a client generated from a document
// meets is what the document says. SWEEP_LOG=<file> writes every answer, to see how deep each
// route's cases reach.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import type { Gateway } from '../../src/gateway.ts';
import { ERROR_CATALOG } from '../../src/common/errors.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, registerDevice, type Tenant } from '../support/tenant.ts';
import { userSession, type SessionClient } from '../support/session-client.ts';
import { fillPath, HOSTILE_HEADERS, hostileCases, sample, type HostileCase, type Schema, type SweptRoute } from '../support/hostile-inputs.ts';
import { UNKNOWN_ID } from '../support/expectations.ts';
import { Receiver } from '../support/receiver.ts';
import { webhookConfig } from '../support/webhooks.ts';
import { DocumentedAnswers, type OpenApiDocument } from '../support/documented-answers.ts';

/** Requests at once: enough to keep the gateway busy on two cores, few enough not to trip its limits. */
const CONCURRENCY = 8;
const REQUEST_TIMEOUT_MS = 10_000;
const EXTENDED = '/api/ext/v1';

interface Caller {
  /** Headers that authenticate this caller on a route of the given permission. */
  headers(permission: string): Record<string, string>;
  /** Ids of what seeding made, by the path it was made at plus /id (/api/ext/v1/contacts/id). */
  ids: Map<string, string>;
}

interface Outcome {
  route: string;
  label: string;
  status: number;
  problem: string;
}

interface Operation {
  'x-permission': string;
  parameters?: { name: string; in: string; schema: Schema }[];
  requestBody?: { required: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}

describe('every route, swept with hostile input', function () {
  // Seeding, the sweep (some 6,600 requests, each answer checked against the document) and the
  // checks after it: 215-230 s were seen beside other test runs on a loaded 2-core machine.
  this.timeout(360_000);
  let gateway: Gateway;
  let root: string;
  let own: Caller;
  let foreign: Caller;
  let session: SessionClient;
  let tenant: Tenant;
  let routes: (SweptRoute & { permission: string })[];
  let documented: DocumentedAnswers;
  let twilioDocumented: DocumentedAnswers;
  const outcomes: Outcome[] = [];
  let caseCount = 0;
  /** Every answer, one line each, written to the file SWEEP_LOG names: how deep each route's cases reach. */
  const answers: string[] = [];

  // Where the sweep's webhooks point: a local receiver the gateway is allowed to reach.
  const receiver = new Receiver();

  before(async function () {
    await receiver.start();
    gateway = await startGateway({ webhooks: webhookConfig() });
    root = `http://127.0.0.1:${gateway.httpPort}`;
    tenant = await createTenant(gateway);
    const other = await createTenant(gateway);
    // The phone whose own credentials the device routes are called with; registered before the
    // seeded one, so that the Extended API's routes (newest first) act on the seeded phone.
    const uploader = await registerDevice(gateway, tenant, 'uploader');
    session = await userSession(gateway, tenant.accountId, 'owner', { isAdmin: true });
    own = caller(tenant.key, session, `${uploader.device.id}:${uploader.token}`);
    foreign = caller(other.key, undefined, undefined);
    const document = (await (await fetch(`${root}${EXTENDED}/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    documented = new DocumentedAnswers(document as unknown as OpenApiDocument);
    twilioDocumented = new DocumentedAnswers((await (await fetch(`${root}${EXTENDED}/openapi-twilio.json`)).json()) as OpenApiDocument);
    const declared = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => ({ method, path, operation })),
    );
    await registerDevice(gateway, tenant, 'seeded');
    await registerDevice(gateway, other, 'seeded');
    webhookUrl = receiver.url;
    for (const who of [own, foreign]) await seed(who, declared);
    routes = await Promise.all(declared.map(({ method, path, operation }) => sweptRoute(method, path, operation)));
  });

  after(async () => {
    await gateway?.stop();
    await receiver.stop();
  });

  it('then no route answers 5xx, drops the connection or leaves its error shape', async () => {
    const started = Date.now();
    // Deleting goes last, so that what it deletes was there for every other route; the session's
    // own logout last of all.
    const order = (route: SweptRoute) => (route.method !== 'delete' ? 0 : route.path.endsWith('/session') ? 2 : 1);
    for (const phase of [0, 1, 2]) {
      const work = routes.filter((route) => order(route) === phase).flatMap((route) => hostileCases(route, idSource(own)).map((each) => ({ route, each })));
      caseCount += work.length;
      await pool(work, ({ route, each }) => send(route, each));
    }
    // Authentication is one middleware per kind of credential: bad headers once per family and kind.
    const kinds = new Map(routes.map((route) => [`${route.path.split('/').slice(0, 3).join('/')} ${route.permission}`, route]));
    const headerWork = [...kinds.values()].flatMap((route) => HOSTILE_HEADERS.map((headers) => ({ route, headers })));
    caseCount += headerWork.length;
    await pool(headerWork, async ({ route, headers }) => {
      const url = fillPath(route.path, Object.fromEntries(Object.entries(route.ids).map(([name, id]) => [name, id.own])));
      const reply = await raw(route.method.toUpperCase(), url, route.body ? '{}' : undefined, { ...(route.body ? { 'content-type': 'application/json' } : {}), ...headers });
      const problem = reply.status === 0 ? reply.text : problemWithApiError(reply);
      if (problem) outcomes.push({ route: `${route.method.toUpperCase()} ${route.path}`, label: `headers ${JSON.stringify(headers).slice(0, 80)}`, status: reply.status, problem });
    });
    const twilio = await twilioCases();
    caseCount += twilio.length;
    await pool(twilio, (work) => work());
    const mcp = await mcpCases();
    caseCount += mcp.length;
    await pool(mcp, (work) => work());
    const sweptMs = Date.now() - started;
    if (process.env.SWEEP_LOG) writeFileSync(process.env.SWEEP_LOG, answers.join('\n'));
    console.log(`      swept ${routes.length + 5 + 1} routes with ${caseCount} hostile requests in ${(sweptMs / 1000).toFixed(1)} s`);
    const report = outcomes.map((outcome) => `${outcome.route} [${outcome.label}] -> ${outcome.status}: ${outcome.problem}`);
    expect(report, `${report.length} bad answers:\n${report.join('\n')}`).to.deep.equal([]);
  });

  it('then the gateway is healthy and the sweep\'s key still works', async () => {
    expect((await fetch(`${root}/healthz`)).status).to.equal(200);
    expect((await fetch(`${root}/readyz`)).status).to.equal(200);
    for (const reply of [await tenant.api.get('/devices'), await tenant.root.get('/sms?limit=10')]) expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  });

  /** Authentication for each kind of route: the key, the admin's session, nothing, or the phone's own credentials. */
  function caller(key: string, user: SessionClient | undefined, deviceCredentials: string | undefined): Caller {
    return {
      ids: new Map(),
      headers(permission): Record<string, string> {
        if (permission === 'public') return {};
        if ((permission === 'session' || permission === 'admin') && user) return { cookie: user.cookie, 'x-csrf-token': user.csrf };
        if (permission === 'device' && deviceCredentials) return { authorization: `Basic ${Buffer.from(deviceCredentials).toString('base64')}` };
        return { authorization: `Bearer ${key}` };
      },
    };
  }

  /**
   * One of everything a caller can create, so that path ids name real rows: each collection
   * (a path with a GET and a POST) gets a POST of a body sampled from its schema; a few need a
   * body no sample guesses.
   */
  async function seed(who: Caller, declared: { method: string; path: string; operation: Operation }[]): Promise<void> {
    const media = await request(who, 'sms:send', 'POST', `${EXTENDED}/media`, PNG, { 'content-type': 'image/png' });
    remember(who, `${EXTENDED}/media`, media.json);
    for (const { method, path, operation } of declared) {
      if (method !== 'post' || !declared.some((other) => other.method === 'get' && other.path === path)) continue;
      const url = await resolve(who, path);
      if (!url) continue;
      const schema = operation.requestBody?.content['application/json']?.schema;
      const body = BASES[`POST ${path}`]?.(idSource(who)) ?? (schema ? sample(schema, '', idSource(who)) : undefined);
      const reply = await request(who, operation['x-permission'], 'POST', url, body === undefined ? undefined : JSON.stringify(body), { 'content-type': 'application/json' });
      answers.push(`seed ${path}\t${reply.status}\t${reply.text.slice(0, 200)}`);
      remember(who, path, reply.json);
    }
  }

  /** The path with each parameter filled with a real id of the caller's (found by listing what it names), or undefined. */
  async function resolve(who: Caller, path: string): Promise<string | undefined> {
    const params: Record<string, string> = {};
    for (const match of path.matchAll(/\{(\w+)\}/g)) {
      const id = await idOf(who, path, match[1]!, params);
      if (!id) return undefined;
      params[match[1]!] = id;
    }
    return fillPath(path, params);
  }

  /** A real id for the parameter: from the list the path up to it names (the Extended API's, for a phone's routes). */
  async function idOf(who: Caller, path: string, name: string, params: Record<string, string>): Promise<string | undefined> {
    const upTo = path.slice(0, path.indexOf(`{${name}}`) - 1);
    // What seeding made first: the first row of a list may be the sweep's own key or user.
    const made = who.ids.get(`${upTo}/${name}`);
    if (made) return made;
    for (const list of [upTo, upTo.replace(/^\/api\/device\/v1/, EXTENDED)]) {
      const reply = await request(who, 'list', 'GET', fillPath(list, params));
      const found = reply.status === 200 ? firstId(reply.json, name) : undefined;
      if (found) return found;
    }
    return undefined;
  }

  async function sweptRoute(method: string, path: string, operation: Operation): Promise<SweptRoute & { permission: string }> {
    const ids: SweptRoute['ids'] = {};
    const ownParams: Record<string, string> = {};
    const foreignParams: Record<string, string> = {};
    for (const match of path.matchAll(/\{(\w+)\}/g)) {
      const name = match[1]!;
      ownParams[name] = (await idOf(own, path, name, ownParams)) ?? UNKNOWN_ID;
      foreignParams[name] = (await idOf(foreign, path, name, foreignParams)) ?? UNKNOWN_ID;
      ids[name] = { own: ownParams[name]!, foreign: foreignParams[name]! };
    }
    const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
    const content = operation.requestBody?.content ?? {};
    const rawTypes = Object.keys(content).filter((type) => type !== 'application/json' && type !== 'text/csv');
    return {
      method,
      path,
      ids,
      permission: operation['x-permission'],
      ...(query.length ? { query: { type: 'object', properties: Object.fromEntries(query.map((parameter) => [parameter.name, parameter.schema])) } } : {}),
      ...(content['application/json'] ? { body: content['application/json'].schema } : {}),
      bodyRequired: operation.requestBody?.required ?? false,
      ...(BASES[`${method.toUpperCase()} ${path}`] ? { base: BASES[`${method.toUpperCase()} ${path}`]!(idSource(own)) } : {}),
      ...(rawTypes.length ? { rawTypes } : {}),
      csv: 'text/csv' in content,
      idempotent: (operation.parameters ?? []).some((parameter) => parameter.name === 'Idempotency-Key'),
    };
  }

  async function send(route: SweptRoute & { permission: string }, each: HostileCase): Promise<void> {
    const reply = await request(own, route.permission, route.method.toUpperCase(), each.url, each.body, each.headers);
    const problem =
      reply.status === 0
        ? reply.text
        : each.refused && reply.status < 400
          ? `taken (${reply.status}), though it breaks what the route declares`
          : (problemWithApiError(reply) ?? documented.problem(route.method, route.path, reply));
    answers.push(`${route.method.toUpperCase()} ${route.path}\t${reply.status}\t${each.label}\t${reply.text.slice(0, 200)}`);
    if (problem) outcomes.push({ route: `${route.method.toUpperCase()} ${route.path}`, label: each.label, status: reply.status, problem });
  }

  /** The Twilio-compatible API: its own authentication (a Twilio credential), form bodies and error shape. */
  async function twilioCases(): Promise<(() => Promise<void>)[]> {
    const credential = (await tenant.api.post('/twilio/credentials', {})).body;
    const sid: string = credential.account_sid ?? credential.sid;
    const secret: string = credential.auth_token ?? credential.token;
    const sms = (await tenant.api.get('/sms')).body.data[0];
    const base = `/2010-04-01/Accounts/${sid}`;
    const authorization = `Basic ${Buffer.from(`${sid}:${secret}`).toString('base64')}`;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const values = ['', 'abc', '-1', '1e309', 'x'.repeat(4000), '%00', '%FF%FE', '2026-02-30', '0000-01-01', '9999-12-31', TWILIO_TO];
    const cases: [string, string, string | undefined, Record<string, string>][] = [];
    for (const name of ['To', 'From', 'Body', 'StatusCallback', 'MediaUrl', 'ValidityPeriod', 'SendAt', 'ScheduleType', 'MessagingServiceSid']) {
      for (const value of values) cases.push(['POST', `${base}/Messages.json`, `To=${TWILIO_TO}&Body=x&${name}=${value}`, form]);
      cases.push(['POST', `${base}/Messages.json`, `${name}=1&${name}=2`, form]);
    }
    for (const name of ['PageSize', 'Page', 'PageToken', 'To', 'From', 'DateSent', 'DateSent%3E', 'DateSent%3C']) {
      for (const value of values) cases.push(['GET', `${base}/Messages.json?${name}=${value}`, undefined, {}]);
    }
    for (const file of ['abc', 'abc.json', 'SM00000000000000000000000000000000.json', 'x'.repeat(300), '%00.json', '%E0%A4%A.json', `${UNKNOWN_ID}.json`]) {
      for (const method of ['GET', 'DELETE']) cases.push([method, `${base}/Messages/${file}`, undefined, {}]);
      cases.push(['POST', `${base}/Messages/${file}`, 'Status=canceled', form]);
    }
    // A JSON body, no body, a malformed form, no Content-Type.
    for (const [body, headers] of [
      ['{"To": "+79161234567"}', { 'content-type': 'application/json' }],
      [undefined, form],
      ['%%%=%%%&&&=', form],
      ['To=1', {}],
    ] as const) {
      cases.push(['POST', `${base}/Messages.json`, body, headers]);
      if (sms) cases.push(['POST', `${base}/Messages/SM${String(sms.id).replace(/-/g, '')}.json`, body, headers]);
    }
    cases.push(['GET', `/2010-04-01/Accounts/AC${'0'.repeat(32)}/Messages.json`, undefined, {}]);
    return cases.map(([method, url, body, headers]) => async () => {
      const reply = await raw(method, url, body, { authorization, ...headers });
      const template = `${url.split('?')[0]!.replace(/\/Accounts\/[^/]+\//, '/Accounts/{AccountSid}/').replace(/\/Messages\/[^/]*\.json$/, '/Messages/{Sid}.json')}`;
      const problem = reply.status === 0 ? reply.text : (problemWithTwilioError(reply) ?? twilioProblem(method, template, reply));
      answers.push(`${method} ${url.slice(0, 120)}\t${reply.status}\t${body?.slice(0, 100) ?? ''}\t${reply.text.slice(0, 200)}`);
      if (problem) outcomes.push({ route: `${method} ${url.split('?')[0]!.replace(sid, '{AccountSid}')}`, label: `${url.split('?')[1] ?? ''} ${body ?? ''}`.slice(0, 80), status: reply.status, problem });
    });
  }

  /** A Twilio answer against the subset's document; a file that is no message's Sid.json is no documented path, and a 404. */
  function twilioProblem(method: string, template: string, reply: Awaited<ReturnType<typeof raw>>): string | undefined {
    if (!/\/Messages(\.json|\/\{Sid\}\.json)$/.test(template)) return reply.status === 404 ? undefined : `answered ${reply.status} outside the documented paths`;
    return twilioDocumented.problem(method, template, reply);
  }

  /** The MCP endpoint: JSON-RPC that is malformed or calls each tool with arguments of the wrong type. */
  async function mcpCases(): Promise<(() => Promise<void>)[]> {
    const headers = { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const rpc = (method: string, params?: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) });
    const listed = await raw('POST', '/api/ext/v1/mcp', rpc('tools/list'), headers);
    const tools = ((listed.json as { result?: { tools?: { name: string; inputSchema?: Schema }[] } })?.result?.tools ?? []);
    expect(tools.length, `tools/list: ${listed.status} ${listed.text.slice(0, 200)}`).to.be.greaterThan(0);
    const bodies: string[] = ['{"jsonrpc": ', '[]', '"x"', 'null', '{}', '{"jsonrpc": "1.0", "id": 1, "method": "tools/list"}', rpc('no/such/method'), rpc('tools/call', { name: 'no_such_tool', arguments: {} }), rpc('tools/call', { name: 1 })];
    for (const tool of tools) {
      bodies.push(rpc('tools/call', { name: tool.name, arguments: 'not an object' }));
      for (const field of Object.keys(tool.inputSchema?.properties ?? {})) {
        for (const value of [-1, 'abc', 'x'.repeat(5000), [], { a: 1 }, null, '\u0000']) bodies.push(rpc('tools/call', { name: tool.name, arguments: { [field]: value } }));
      }
    }
    return bodies.map((body) => async () => {
      const reply = await raw('POST', '/api/ext/v1/mcp', body, headers);
      answers.push(`POST /api/ext/v1/mcp\t${reply.status}\t${body.slice(0, 100)}\t${reply.text.slice(0, 200)}`);
      // JSON-RPC's own 500 is error -32603; a tool whose API call failed that way says internal_error.
      const failed = reply.status === 0 || reply.status >= 500 || /"code":\s*-32603|internal_error/.test(reply.text);
      if (failed) outcomes.push({ route: 'POST /api/ext/v1/mcp', label: body.slice(0, 100), status: reply.status, problem: reply.text.slice(0, 300) });
    });
  }

  async function request(who: Caller, permission: string, method: string, url: string, body?: string | Buffer, headers: Record<string, string> = {}) {
    return raw(method, url, body, { ...who.headers(permission === 'list' ? (url.startsWith('/api/ext/v1/accounts') ? 'session' : 'key') : permission), ...headers });
  }

  /** One request; status 0 when no answer came (the text says why). An event stream is cut once its headers arrive. */
  async function raw(method: string, url: string, body: string | Buffer | undefined, headers: Record<string, string>) {
    try {
      const response = await fetch(root + url, { method, headers, ...(body !== undefined ? { body } : {}), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        await response.body?.cancel();
        return { status: response.status, headers: response.headers, text: '', json: undefined as unknown };
      }
      const text = await response.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: response.status, headers: response.headers, text, json };
    } catch (error) {
      return { status: 0, headers: new Headers(), text: `no answer: ${(error as Error).message} ${String((error as { cause?: unknown }).cause ?? '')}`, json: undefined as unknown };
    }
  }

  function remember(who: Caller, path: string, json: unknown): void {
    const id = (json as Record<string, unknown> | undefined)?.id;
    if (typeof id === 'string') who.ids.set(`${path}/id`, id);
  }

  function idSource(who: Caller) {
    return (name: string) => {
      const kind = name.replace(/_ids?$/, '');
      for (const [path, id] of who.ids) if (path.includes(kind)) return id;
      return UNKNOWN_ID;
    };
  }
});

/** The id (or the member the parameter is named after) of the first row of a list, or of the first row of a list inside it. */
function firstId(json: unknown, name: string): string | undefined {
  const lists = Array.isArray(json) ? [json] : typeof json === 'object' && json !== null ? Object.values(json).filter(Array.isArray) : [];
  for (const list of lists) {
    const row = list[0] as Record<string, unknown> | undefined;
    const value = row?.[name] ?? row?.id ?? row?.phone ?? row?.sid ?? row?.account_sid;
    if (typeof value === 'string' || typeof value === 'number') return encodeURIComponent(String(value));
  }
  return undefined;
}

/**
 * 5xx answers that describe the gateway's state, not the input: a no_store SMS (sent at once or
 * not at all) when no phone is online to take it, as in this sweep, is 503 no_device_available.
 */
const STATE_NOT_INPUT = new Set(['no_device_available']);

/** Why an answer to hostile input is wrong: a 5xx, or a 4xx without the API's error body. */
function problemWithApiError(reply: { status: number; headers: Headers; text: string; json: unknown }): string | undefined {
  if (reply.status === 503 && STATE_NOT_INPUT.has((reply.json as { error?: { code?: string } })?.error?.code ?? '')) return undefined;
  if (reply.status >= 500) return reply.text.slice(0, 300);
  if (reply.status < 400) return undefined;
  const body = reply.json as { error?: { message?: unknown; code?: unknown; details?: unknown } } | undefined;
  const error = body?.error;
  if (!(reply.headers.get('content-type') ?? '').startsWith('application/json')) return `not JSON: ${reply.text.slice(0, 200)}`;
  if (!error || typeof error.message !== 'string' || !error.message || typeof error.code !== 'string') return `not the error shape: ${reply.text.slice(0, 200)}`;
  const entry = ERROR_CATALOG[error.code as keyof typeof ERROR_CATALOG];
  if (!entry) return `code not in the catalog: ${error.code}`;
  if (entry.status !== reply.status) return `code ${error.code} belongs to ${entry.status}`;
  return undefined;
}

/** Twilio's error body: { code, message, more_info, status }, its status the HTTP status. */
function problemWithTwilioError(reply: { status: number; text: string; json: unknown }): string | undefined {
  if (reply.status >= 500) return reply.text.slice(0, 300);
  if (reply.status < 400) return undefined;
  const body = reply.json as { code?: unknown; message?: unknown; status?: unknown } | undefined;
  if (typeof body?.code !== 'number' || typeof body.message !== 'string' || body.status !== reply.status) return `not Twilio's error shape: ${reply.text.slice(0, 200)}`;
  return undefined;
}

let webhookUrl = '';
/** A number the sweep never opts out (its CSV imports opt out the one the other routes send to). */
const TWILIO_TO = '%2B79161239999';
const unique = () => `sweep-${Math.random().toString(36).slice(2)}`;

/** Bodies no sample from the schema guesses (a value from a fixed list, a USSD code): the base each field is set in, and what seeding posts. */
const BASES: Record<string, (ids: (name: string) => string) => unknown> = {
  [`POST ${EXTENDED}/webhooks`]: () => ({ url: webhookUrl, events: ['sms.status_changed'] }),
  [`POST ${EXTENDED}/mms`]: (ids) => ({ media_ids: [ids('media_id')], phone: '+79161234567' }),
  [`POST ${EXTENDED}/contacts/send`]: (ids) => ({ group_id: ids('group_id'), message: 'hello {{name}}' }),
  // Another number than the one every send goes to, which would be refused as opted out.
  [`POST ${EXTENDED}/suppressions`]: () => ({ phone: '+79161230000' }),
  [`POST ${EXTENDED}/suppressions/import`]: () => ({ phones: ['+79161230001'] }),
  'POST /sms/get': (ids) => ({ id: ids('sms_id') }),
  'POST /devices/get/info': (ids) => ({ device_id: ids('device_id') }),
  'POST /devices/edit': (ids) => ({ device_id: ids('device_id') }),
  [`POST ${EXTENDED}/inbound-rules`]: () => ({ action: 'tag', tags: ['sweep'] }),
  [`POST ${EXTENDED}/devices/{id}/ussd`]: () => ({ code: '*100#' }),
  [`POST ${EXTENDED}/accounts`]: () => ({ name: unique(), owner_email: `${unique()}@example.com` }),
  [`POST ${EXTENDED}/keys`]: () => ({ permissions: ['sms:read'] }),
  [`POST ${EXTENDED}/users`]: () => ({ email: `${unique()}@example.com`, role: 'viewer' }),
};

/** Runs `work` over `items`, CONCURRENCY at a time. */
async function pool<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** A 1x1 PNG, for the media an MMS route names. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
