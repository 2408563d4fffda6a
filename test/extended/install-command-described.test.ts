// install_command in the API reference: a reader of the OpenAPI document learns what the line is
// (the installer downloaded to a temporary file, run with the pairing URL), where to run it
// (Termux on the phone) and how it fails (visibly, exit 1), and the line answered has that shape.
import { expect } from 'chai';
import { INSTALLER_NOT_DOWNLOADED } from '../../src/modules/devices/install-command.ts';
import { useGateway } from '../support/use-gateway.ts';

const PREFIX = '/api/ext/v1';

/** The descriptions of every property named `name` anywhere in the document. */
function descriptionsOf(node: unknown, name: string, found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item) => descriptionsOf(item, name, found));
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties' && value && typeof value === 'object' && name in value) {
        const property = (value as Record<string, { description?: string }>)[name]!;
        if (property.description) found.push(property.description);
      }
      descriptionsOf(value, name, found);
    }
  }
  return found;
}

describe('install_command in the API reference', () => {
  const fx = useGateway();

  it('then its description says where to run it, what it downloads and runs, and how it fails', async () => {
    const document = await (await fetch(`${fx.baseUrl}${PREFIX}/openapi.json`)).json();
    const descriptions = [...new Set(descriptionsOf(document, 'install_command'))];
    expect(descriptions).to.have.length(1);
    const [description] = descriptions as [string];
    expect(description).to.contain('Termux on the Android phone');
    expect(description).to.contain('docs/agent-termux.md');
    expect(description).to.contain('to a temporary file and runs it with pairing_url as its argument');
    expect(description).to.contain('GET /agent/install.sh');
    expect(description).to.contain(INSTALLER_NOT_DOWNLOADED);
    expect(description).to.contain('exits 1');
  });

  it('then the line a registration answers has the shape described', async () => {
    const reply = await fx.tenant.api.post('/devices', { name: 'described' });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    const { install_command: line, pairing_url: pairingUrl } = reply.body;
    expect(line.startsWith(`history -d -1 2>/dev/null; (f=$(mktemp) && trap 'rm -f "$f"' EXIT && curl -fsSL -o "$f" '${fx.baseUrl}/agent/install.sh' || {`), line).to.equal(true);
    expect(line).to.contain(`echo '${INSTALLER_NOT_DOWNLOADED}' >&2; exit 1; }`);
    expect(line.endsWith(`sh "$f" '${pairingUrl}')`), line).to.equal(true);
  });
});
