// Methods a path does not serve: whatever the method's name, the answer is 405 with `Allow`
// (README, "Errors"), never a 501, and nothing is logged at error level. Raw HTTP requests with
// methods fetch() would refuse or rewrite, against a real gateway whose log lines the test
// reads.
import http from 'node:http';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { Gateway } from '../../src/gateway.ts';
import { testDatabaseUrl } from '../support/environment.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

function rawRequest(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.once('error', reject);
      response.once('end', () => {
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: response.statusCode!, headers: response.headers, body });
      });
    });
    request.once('error', reject);
    request.end();
  });
}

const allowOf = (reply: RawReply) =>
  String(reply.headers.allow ?? '')
    .split(',')
    .map((method) => method.trim())
    .filter((method) => method && method !== 'HEAD' && method !== 'OPTIONS');

describe('methods a path does not serve', () => {
  let gateway: Gateway;
  let tenant: Tenant;
  let port: number;
  const logLines: { level: number; msg: string; status?: number }[] = [];

  before(async function () {
    // Starting a gateway on the embedded database takes longer than a test on a busy machine.
    this.timeout(Math.max(this.timeout(), 30_000));
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logLines.push(JSON.parse(line));
        done();
      },
    });
    const config = { ...loadConfig({}), port: 0, host: '127.0.0.1', mqttPort: 0, databaseUrl: testDatabaseUrl(), dataDir: ':memory:', logLevel: 'debug' as const };
    gateway = await Gateway.start(config, createLogger(config.logLevel, sink));
    tenant = await createTenant(gateway);
    port = gateway.httpPort;
  });
  after(async () => gateway.stop());

  const cases: [method: string, path: string, allowed: string[]][] = [
    ['PROPFIND', '/api/ext/v1/sms', ['GET', 'POST']],
    ['PURGE', '/api/ext/v1/devices', ['GET', 'POST']],
    ['SEARCH', '/api/ext/v1/sms/00000000-0000-4000-8000-000000000000', ['GET']],
    ['UNLOCK', '/api/ext/v1/devices/00000000-0000-4000-8000-000000000000', ['GET', 'DELETE']],
    ['LINK', '/api/ext/v1/devices/00000000-0000-4000-8000-000000000000/settings', ['PATCH']],
    ['MKCOL', '/api/ext/v1/sms/bulk', ['POST']],
    ['PROPFIND', '/sms/send', ['POST']],
    ['QUERY', '/sms/del', ['DELETE']],
    ['PUT', '/sms/send', ['POST']],
  ];
  for (const [method, path, allowed] of cases) {
    it(`when ${method} ${path} is asked, then it is a 405 method_not_allowed with Allow: ${allowed.join(', ')}`, async () => {
      const reply = await rawRequest(port, method, path, { authorization: `Bearer ${tenant.key}` });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(405);
      expect(reply.body.error.code).to.equal('method_not_allowed');
      expect(allowOf(reply)).to.have.members(allowed);
    });
  }

  it('when a method no route knows is asked on a path nothing serves, then it stays a 404 route_not_found', async () => {
    for (const method of ['PROPFIND', 'PURGE', 'PUT']) {
      const reply = await rawRequest(port, method, '/api/ext/v1/nothing-here');
      expect(reply.status, method).to.equal(404);
      expect(reply.body.error.code).to.equal('route_not_found');
    }
  });

  it('when OPTIONS is asked, then the answer names the methods the path serves', async () => {
    for (const [path, allowed] of [
      ['/api/ext/v1/sms', ['GET', 'POST']],
      ['/api/ext/v1/sms/bulk', ['POST']],
    ] as const) {
      const reply = await rawRequest(port, 'OPTIONS', path);
      expect(reply.status, path).to.be.oneOf([200, 204]);
      expect(allowOf(reply), path).to.have.members([...allowed]);
    }
  });

  it('when a method the HTTP parser does not know is sent (FOO), then it is a 4xx, never a 501 or a 500', async () => {
    const reply = await rawRequest(port, 'FOO', '/api/ext/v1/sms');
    expect(reply.status).to.be.within(400, 499);
  });

  it('when odd methods were asked, then nothing was logged at error level and no request was answered 501', async () => {
    for (const method of ['PROPFIND', 'PURGE', 'MKCOL', 'UNLOCK']) await rawRequest(port, method, '/api/ext/v1/sms');
    const answered = logLines.filter((line) => line.msg === 'request' || line.msg === 'request failed');
    expect(answered.length, 'the access log saw the requests').to.be.at.least(4);
    expect(answered.map((line) => line.status)).not.to.include(501);
    expect(logLines.filter((line) => line.level >= 50).map((line) => line.msg)).to.deep.equal([]);
  });
});
