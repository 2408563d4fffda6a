// The install line the gateway gives for Termux, run by a real shell against a real HTTP server:
// when the script does not download (a 404, nothing listening) the line says so and exits
// non-zero, and runs nothing; when it does, the line's status is the script's. A line that pipes
// curl into sh exits 0 when curl fails, as if it had installed.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentInstallCommand, INSTALLER_NOT_DOWNLOADED } from '../../src/modules/devices/install-command.ts';

const PAIRING = 'smsgw://gateway.example.com:1883?v=1&device=d&token=t';
// What the served script does: says it ran, with its argument, and ends with the status asked for.
const SCRIPT = (status: number) => `#!/bin/sh\necho "installer ran with $1"\nexit ${status}\n`;

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(shell: string, line: string, tmp: string): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, ['-c', line], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmp, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the Termux install line, when the script does or does not download', () => {
  let server: Server;
  let base: string;
  let tmp: string;

  before(async () => {
    server = createServer((request, response) => {
      const served = /^\/status-(\d+)\/agent\/install\.sh$/.exec(request.url ?? '');
      response.writeHead(served ? 200 : 404, { 'content-type': 'text/plain' });
      response.end(served ? SCRIPT(Number(served[1])) : 'not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'install-line-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  for (const shell of ['bash', 'sh']) {
    describe(`in ${shell}`, () => {
      it('when the script is not found (404), then the line says so, runs nothing and exits 1', async () => {
        const finished = await run(shell, agentInstallCommand(`${base}/missing`, PAIRING), tmp);
        expect(finished.code, finished.stderr).to.equal(1);
        expect(finished.stderr).to.contain('404').and.to.contain(INSTALLER_NOT_DOWNLOADED);
        expect(finished.stdout).not.to.contain('installer ran');
        expect(readdirSync(tmp), 'no file left behind').to.deep.equal([]);
      });

      it('when nothing listens at the address, then the line says so and exits 1', async () => {
        const closed = createServer();
        await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
        const port = (closed.address() as AddressInfo).port;
        await new Promise<void>((resolve) => closed.close(() => resolve()));
        const finished = await run(shell, agentInstallCommand(`http://127.0.0.1:${port}`, PAIRING), tmp);
        expect(finished.code, finished.stderr).to.equal(1);
        expect(finished.stderr).to.contain('curl: (7)').and.to.contain(INSTALLER_NOT_DOWNLOADED);
      });

      it('when the download fails, then the shell the line was pasted into goes on (its exit ends only the line)', async () => {
        const finished = await run(shell, `${agentInstallCommand(`${base}/missing`, PAIRING)}; echo "session still open after status $?"`, tmp);
        expect(finished.stdout).to.contain('session still open after status 1');
      });

      it('when the script downloads, then it runs with the pairing URL, and the line exits with its status', async () => {
        const installed = await run(shell, agentInstallCommand(`${base}/status-0`, PAIRING), tmp);
        expect(installed.code, installed.stderr).to.equal(0);
        expect(installed.stdout).to.equal(`installer ran with ${PAIRING}\n`);
        expect(installed.stderr).to.equal('');
        expect(readdirSync(tmp), 'the downloaded script is removed').to.deep.equal([]);
        const failed = await run(shell, agentInstallCommand(`${base}/status-3`, PAIRING), tmp);
        expect(failed.code).to.equal(3);
        expect(failed.stderr, 'a failing script is not told as a failed download').not.to.contain(INSTALLER_NOT_DOWNLOADED);
      });
    });
  }
});
