// A strict TypeScript client generated from the document the gateway serves, as a user would make
// one: openapi-typescript writes the types from GET /api/ext/v1/openapi.json, openapi-fetch calls
// the gateway with them. The calls are type-checked (strict, as this repository is) and then run
// against the running gateway. What they hold the document to: every list is called without
// `limit` (a parameter with a default is optional), the legacy list without `offset`, and the
// legacy routes that refuse a request without their id are typed so that leaving it out does not
// compile. The calls are written from the document's own list of lists, so a list added later is
// called too.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { useGateway } from '../support/use-gateway.ts';
import { packageRoot } from '../../src/common/package-info.ts';

const PHONE = '+79161234567';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

interface Parameter {
  name: string;
  in: string;
  schema?: { default?: unknown };
}
type Doc = { paths: Record<string, Record<string, { 'x-permission': string; parameters?: Parameter[] }>> };

/**
 * Every list of the document that pages with a `limit` of a default page size: all of the Extended
 * API's. (The legacy GET /sms has no default: its clients always give limit, and so does this one.)
 */
function listsOf(doc: Doc): { path: string; permission: string; pathParameters: string[] }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => {
    const get = item.get;
    if (!get?.parameters?.some((parameter) => parameter.in === 'query' && parameter.name === 'limit' && parameter.schema?.default !== undefined)) return [];
    return [{ path, permission: get['x-permission'], pathParameters: get.parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name) }];
  });
}

/** The typed calls, as a user of the generated types writes them. */
function callsProgram(lists: ReturnType<typeof listsOf>): string {
  const value = (name: string) => ({ id: 'ids.deviceId', phone: 'ids.phone' })[name] ?? 'ids.unknown';
  const listCalls = lists
    .map(({ path, pathParameters }) =>
      pathParameters.length
        ? `  note('${path}', await client.GET('${path}', { params: { path: { ${pathParameters.map((name) => `${name}: ${value(name)}`).join(', ')} } } }));`
        : `  note('${path}', await client.GET('${path}'));`,
    )
    .join('\n');
  return `import createClient from 'openapi-fetch';
import type { paths } from './schema.ts';

export interface Seen {
  path: string;
  status: number;
  rows: number | undefined;
}

export async function run(baseUrl: string, key: string, ids: { deviceId: string; phone: string; unknown: string }): Promise<Seen[]> {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` } });
  const seen: Seen[] = [];
  const note = (path: string, reply: { response: Response; data?: unknown }) => {
    const rows = (reply.data as { data?: unknown[]; sms_list?: unknown[] } | undefined);
    seen.push({ path, status: reply.response.status, rows: (rows?.data ?? rows?.sms_list)?.length });
  };

  const sent = await client.POST('/api/ext/v1/sms', { body: { phone: ids.phone, message: 'typed' } });
  note('/api/ext/v1/sms (POST)', sent);
  if (!sent.data) throw new Error('POST /api/ext/v1/sms answered no SMS');
  const one = await client.GET('/api/ext/v1/sms/{id}', { params: { path: { id: sent.data.id } } });
  note('/api/ext/v1/sms/{id}', one);
  const status: string | undefined = one.data?.status;
  if (status !== 'pending') throw new Error(\`a new SMS is pending, not \${String(status)}\`);

  // Every list, without limit.
${listCalls}

  // The legacy family: its list without offset, a device named by device_id, an SMS deleted by id.
  note('/sms', await client.GET('/sms', { params: { query: { limit: 10 } } }));
  note('/devices/get/info', await client.POST('/devices/get/info', { body: { device_id: ids.deviceId } }));
  note('/sms/del', await client.DELETE('/sms/del', { params: { query: { id: sent.data.id } } }));
  return seen;
}

/** Never called: what the types must refuse, because the gateway refuses it. */
export async function refusedByTheTypes(client: ReturnType<typeof createClient<paths>>): Promise<void> {
  // @ts-expect-error device_id is required (or its alias id): without either the gateway answers 400
  await client.POST('/devices/get/info', { body: {} });
  // @ts-expect-error device_id is required to edit a device
  await client.POST('/devices/edit', { body: { is_active: true } });
  // @ts-expect-error device_id is required to delete a device
  await client.POST('/devices/del', { body: {} });
  // @ts-expect-error the id of the SMS to delete is required
  await client.DELETE('/sms/del', {});
}
`;
}

/** The compiler's complaints about the program, as this repository's own settings would make them. */
function typeErrors(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2024.d.ts', 'lib.dom.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : undefined;
    return `${where ? `${diagnostic.file!.fileName.split('/').pop()}:${where.line + 1}: ` : ''}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

describe('a TypeScript client generated from the served OpenAPI document', function () {
  // Generating and type-checking take some seconds of compiler time.
  this.timeout(120_000);
  const fx = useGateway({ tenant: 'once' });
  let directory: string;
  let lists: ReturnType<typeof listsOf>;
  let errors: string[];

  before(async () => {
    const doc = (await (await fetch(`${fx.baseUrl}/api/ext/v1/openapi.json`)).json()) as Doc;
    lists = listsOf(doc);
    // Inside the checkout (.tmp/ is ignored by git), so that the program finds openapi-fetch as a user's would.
    mkdirSync(join(packageRoot(), '.tmp'), { recursive: true });
    directory = mkdtempSync(join(packageRoot(), '.tmp', 'typed-client-'));
    writeFileSync(join(directory, 'schema.ts'), astToString(await openapiTS(doc as unknown as OpenAPI3)));
    writeFileSync(join(directory, 'calls.ts'), callsProgram(lists));
    errors = typeErrors(join(directory, 'calls.ts'));
  });

  after(() => {
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it('then the document has lists to call, the SMS list among them', () => {
    expect(lists.map((list) => list.path)).to.include.members(['/api/ext/v1/sms', '/api/ext/v1/devices', '/api/ext/v1/contacts']);
  });

  it('then the calls type-check: no list needs limit, the legacy list no offset, and a legacy call without its id does not compile', () => {
    expect(errors, errors.join('\n')).to.deep.equal([]);
  });

  it('then the typed calls run against the gateway, and every list answers its first page', async () => {
    const { device } = await fx.registerDevice();
    const { run } = (await import(pathToFileURL(join(directory, 'calls.ts')).href)) as {
      run: (baseUrl: string, key: string, ids: { deviceId: string; phone: string; unknown: string }) => Promise<{ path: string; status: number; rows: number | undefined }[]>;
    };
    const seen = await run(fx.baseUrl, fx.tenant.key, { deviceId: device.id, phone: PHONE, unknown: UNKNOWN_ID });
    const statusOf = (path: string) => seen.find((each) => each.path === path)?.status;
    expect(statusOf('/api/ext/v1/sms (POST)')).to.equal(201);
    for (const { path, permission, pathParameters } of lists) {
      // The accounts list is an administrator's (a session), never a key's; a webhook the account
      // does not have has no deliveries to list.
      const expected = permission === 'admin' ? 403 : pathParameters.includes('id') && path.startsWith('/api/ext/v1/webhooks/') ? 404 : 200;
      expect(statusOf(path), path).to.equal(expected);
    }
    expect(seen.find((each) => each.path === '/api/ext/v1/sms')?.rows).to.equal(1);
    expect(seen.find((each) => each.path === '/sms')?.rows).to.equal(1);
    expect(statusOf('/devices/get/info')).to.equal(200);
    expect(statusOf('/sms/del')).to.equal(204);
  });
});
