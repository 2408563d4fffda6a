// The TypeScript SDK's types are generated from the gateway's route declarations: the committed
// file must be what the generator writes now, or the SDK would describe an API that changed.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { SDK_SCHEMA_FILE, generatedSdkSchema } from '../../scripts/generate-sdk-types.ts';

describe('TypeScript SDK types', () => {
  it('sdk/typescript/src/schema.ts is what scripts/generate-sdk-types.ts writes now', async function () {
    this.timeout(30_000);
    const stale = 'sdk/typescript/src/schema.ts is stale: run `npx tsx scripts/generate-sdk-types.ts`';
    expect(readFileSync(SDK_SCHEMA_FILE, 'utf8') === (await generatedSdkSchema()), stale).to.equal(true);
  });
});
