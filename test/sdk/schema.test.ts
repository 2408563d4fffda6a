// The Extended API's types (sdk/typescript/src/schema.ts, read by the TypeScript SDK and the
// control panel) are generated from the gateway's route declarations: the committed file must be
// what the generator writes now, or both would describe an API that changed; and the document it
// is generated from must be the Extended API the running gateway documents.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { extendedDocument } from '../../scripts/extended-api-document.ts';
import { SDK_SCHEMA_FILE, generatedSdkSchema } from '../../scripts/generate-sdk-types.ts';
import { useGateway } from '../support/use-gateway.ts';

const PREFIX = '/api/ext/v1';

describe('TypeScript SDK types', () => {
  const gw = useGateway();

  it('sdk/typescript/src/schema.ts is what scripts/generate-sdk-types.ts writes now', async function () {
    this.timeout(30_000);
    const stale = 'sdk/typescript/src/schema.ts is stale: run `npx tsx scripts/generate-sdk-types.ts`';
    expect(readFileSync(SDK_SCHEMA_FILE, 'utf8') === (await generatedSdkSchema()), stale).to.equal(true);
  });

  it("the generator documents the Extended API's paths exactly as the running gateway serves them", async () => {
    const served = (await (await fetch(`${gw.baseUrl}${PREFIX}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const extended = Object.fromEntries(Object.entries(served.paths).filter(([path]) => path.startsWith(`${PREFIX}/`)));
    expect(((await extendedDocument()) as { paths: Record<string, unknown> }).paths).to.deep.equal(extended);
  });
});
