// The device agent from the gateway: GET /agent/sms-gateway-agent.tgz serves the package the
// build packed, and GET /agent/install.sh the install script, written for the address phones
// reach the gateway at: PUBLIC_URL, else the address the request came to, never anything a
// client sends that is not a valid host (it would be run by a shell).
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { request } from 'node:http';
import { AGENT_PACKAGE, ensureAgentPacked } from '../../scripts/agent-pack.js';
import { useGateway } from '../support/use-gateway.ts';

/** A GET with headers fetch will not send (Host). */
function get(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, path, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    sent.once('error', reject).end();
  });
}

function writeTemporary(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'install-script-')), 'install.sh');
  writeFileSync(file, text);
  return file;
}

describe('agent download: without PUBLIC_URL', () => {
  const fx = useGateway({ tenant: 'none' });

  before(async function () {
    this.timeout(120_000);
    await ensureAgentPacked();
  });

  it('when the package is asked for, then it is the packed agent, and asked again with its ETag it is a 304', async () => {
    const response = await fetch(`${fx.baseUrl}/agent/sms-gateway-agent.tgz`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/gzip');
    expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(AGENT_PACKAGE))).to.equal(true);
    const etag = response.headers.get('etag')!;
    expect((await fetch(`${fx.baseUrl}/agent/sms-gateway-agent.tgz`, { headers: { 'if-none-match': etag } })).status).to.equal(304);
  });

  it('when the install script is asked for, then it fetches the package from the address the request came to, uncached, and is valid sh', async () => {
    const response = await fetch(`${fx.baseUrl}/agent/install.sh`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('cache-control')).to.equal('no-store');
    const script = await response.text();
    expect(script).to.contain(`GATEWAY='${fx.baseUrl}'\n`);
    execFileSync('sh', ['-n'], { input: script });
  });

  it('when the script is run without the pairing URL, then it asks for it on the terminal and checks what was pasted', async () => {
    const script = await (await fetch(`${fx.baseUrl}/agent/install.sh`)).text();
    // On a pseudo-terminal (script(1)), the script itself coming through a pipe as with curl.
    const file = writeTemporary(script);
    const run = spawnSync('script', ['-qc', 'sh -c "cat | sh" < "$SCRIPT_FILE"', '/dev/null'], {
      input: 'https://not-a-pairing-url\n',
      env: { PATH: process.env.PATH, HOME: dirname(file), SCRIPT_FILE: file },
      encoding: 'utf8',
    });
    rmSync(dirname(file), { recursive: true, force: true });
    expect(run.stdout).to.contain('Pairing URL (smsgw://..., from the gateway): ').and.to.contain('the pairing URL starts with smsgw://');
  });

  it('when the Host header is no valid host, then it is a 400 naming Host, and nothing of it reaches a script', async () => {
    for (const host of ["gw.example.com';reboot;'", 'gw.example.com/evil', 'user@gw.example.com']) {
      const answer = await get(fx.gateway.httpPort, '/agent/install.sh', { host });
      expect(answer.status, host).to.equal(400);
      expect(JSON.parse(answer.body).error).to.deep.include({ code: 'validation_failed' });
      expect(answer.body).to.contain('Host');
    }
  });

  it('when a client that is no trusted proxy sends X-Forwarded-Host, then the script ignores it', async () => {
    const answer = await get(fx.gateway.httpPort, '/agent/install.sh', { host: `127.0.0.1:${fx.gateway.httpPort}`, 'x-forwarded-host': 'attacker.example.com', 'x-forwarded-proto': 'https' });
    expect(answer.status).to.equal(200);
    expect(answer.body).to.contain(`GATEWAY='http://127.0.0.1:${fx.gateway.httpPort}'\n`).and.not.to.contain('attacker');
  });
});

describe('agent download: with PUBLIC_URL', () => {
  const fx = useGateway({ config: { publicUrl: 'https://sms.example.com/gateway/' } });

  it('when the install script and a new device\'s install line are asked for through another address, then both name PUBLIC_URL', async () => {
    const script = await get(fx.gateway.httpPort, '/agent/install.sh', { host: 'internal-node-7:3000' });
    expect(script.status).to.equal(200);
    expect(script.body).to.contain("GATEWAY='https://sms.example.com/gateway'\n");
    const registered = await fx.tenant.api.post('/devices', { name: 'phone' });
    expect(registered.body.install_command).to.equal(
      `history -d -1 2>/dev/null; (f=$(mktemp) && trap 'rm -f "$f"' EXIT && curl -fsSL -o "$f" 'https://sms.example.com/gateway/agent/install.sh' || ` +
        `{ echo 'sms-gateway-agent: the installer did not download (curl says why above); nothing was installed' >&2; exit 1; }; sh "$f" '${registered.body.pairing_url}')`,
    );
  });
});
