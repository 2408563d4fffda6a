// The panel's API types (panel/src/api/schema.d.ts) are generated from the gateway's OpenAPI
// document and committed: this fails when a schema changed and the file was not generated again,
// and when the generator's list of routes is not the Extended API the running gateway documents.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { extendedDocument, generatedSchema, SCHEMA_FILE } from '../../scripts/generate-panel-api-types.ts';
import { useGateway } from '../support/use-gateway.ts';

const PREFIX = '/api/ext/v1';

describe('panel: generated API types', () => {
  const gw = useGateway();

  it('panel/src/api/schema.d.ts is what the generator writes now (else: npx tsx scripts/generate-panel-api-types.ts)', async function () {
    this.timeout(30_000);
    expect(readFileSync(SCHEMA_FILE, 'utf8') === (await generatedSchema()), 'panel/src/api/schema.d.ts is stale').to.equal(true);
  });

  it("the generator documents the Extended API's paths exactly as the running gateway serves them", async () => {
    const served = (await (await fetch(`${gw.baseUrl}${PREFIX}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const extended = Object.fromEntries(Object.entries(served.paths).filter(([path]) => path.startsWith(`${PREFIX}/`)));
    expect((extendedDocument() as { paths: Record<string, unknown> }).paths).to.deep.equal(extended);
  });
});
