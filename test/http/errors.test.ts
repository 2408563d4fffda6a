// The error model on every kind of bad request (README, "Errors"): every error is
// {"error": {"message", "code"}}; malformed JSON is 400, a body over the size limit 413, a
// non-JSON content type on a body 415, an unknown route 404, a wrong method 405, a missing or
// unknown key 401 with WWW-Authenticate: Bearer. No client input of any kind produces a 500.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { ApiClient } from '../support/tenant.ts';
import { detailFields, expectError, expectErrorBody } from '../support/expectations.ts';
import { openSocket, untilClosed } from '../support/raw-http.ts';

const PHONE = '+79161234567';
const BODY_LIMIT = 64 * 1024;

/** A JSON SMS body of exactly `bytes` bytes (UTF-8), padded in the message. */
function smsBodyOfSize(bytes: number): string {
  const empty = JSON.stringify({ phone: PHONE, message: '' });
  const body = JSON.stringify({ phone: PHONE, message: 'a'.repeat(bytes - Buffer.byteLength(empty)) });
  expect(Buffer.byteLength(body)).to.equal(bytes);
  return body;
}

describe('the error model of the Extended API', () => {
  const fx = useGateway();
  let anonymous: ApiClient;

  beforeEach(async () => {
    anonymous = new ApiClient(fx.tenant.api.baseUrl, undefined);
  });

  const withAuthorization = (value: string) => (method: string, path: string, body?: unknown) =>
    anonymous.request(method, path, body, { authorization: value });

  describe('when the body is not valid JSON', () => {
    for (const body of ['{"phone": "+79161234567", "message": ', '{phone: "+79161234567"}', "{'message': 'x'}", '{"message": "x",}', 'hello']) {
      it(`then ${JSON.stringify(body)} is a 400 invalid_json`, async () => {
        expectError(await fx.tenant.api.post('/sms', body), 400, 'invalid_json');
      });
    }

    it('then malformed JSON on PATCH settings is a 400 invalid_json too', async () => {
      const { device } = await fx.registerDevice();
      expectError(await fx.tenant.api.patch(`/devices/${device.id}/settings`, '{"record_calls": tru'), 400, 'invalid_json');
    });
  });

  describe('when the JSON body is not an object', () => {
    for (const body of ['"hello"', '42', 'null', 'true', '[]', '[{"phone": "+79161234567", "message": "x"}]']) {
      it(`then ${body} is a 400`, async () => {
        const reply = await fx.tenant.api.post('/sms', body);
        expectError(reply, 400);
        expect(reply.body.error.code).to.be.oneOf(['invalid_json', 'validation_failed']);
      });
    }

    it('then an empty body with Content-Type application/json is a 400', async () => {
      expectError(await fx.tenant.api.request('POST', '/sms', '', { 'content-type': 'application/json' }), 400);
    });
  });

  describe('when the body is larger than the limit (64 KiB by default)', () => {
    it('then one byte over is a 413 payload_too_large', async () => {
      expectError(await fx.tenant.api.post('/sms', smsBodyOfSize(BODY_LIMIT + 1)), 413, 'payload_too_large');
    });

    it('then a body far over is a 413 payload_too_large', async () => {
      expectError(await fx.tenant.api.post('/sms', smsBodyOfSize(1024 * 1024)), 413, 'payload_too_large');
    });

    it('then a body of exactly the limit is read (and judged on its content)', async () => {
      expectError(await fx.tenant.api.post('/sms', smsBodyOfSize(BODY_LIMIT)), 400, 'message_too_long');
    });

    it('then a lower BODY_LIMIT is honoured', async () => {
      const small = await fx.startGateway({ bodyLimitBytes: 2048 });
      try {
        const client = (await fx.newTenant(undefined, small)).api;
        expectError(await client.post('/sms', smsBodyOfSize(2049)), 413, 'payload_too_large');
        expectError(await client.post('/sms', smsBodyOfSize(2048)), 400, 'message_too_long');
      } finally {
        await small.stop();
      }
    });
  });

  describe('when the body is not JSON', () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
      it(`then Content-Type ${type} is a 415 unsupported_media_type`, async () => {
        const reply = await fx.tenant.api.request('POST', '/sms', JSON.stringify({ phone: PHONE, message: 'x' }), { 'content-type': type });
        expectError(reply, 415, 'unsupported_media_type');
      });
    }

    it('then a body with Content-Type text/plain on PATCH settings is a 415', async () => {
      const { device } = await fx.registerDevice();
      const reply = await fx.tenant.api.request('PATCH', `/devices/${device.id}/settings`, '{"record_calls": true}', { 'content-type': 'text/plain' });
      expectError(reply, 415, 'unsupported_media_type');
      expect((await fx.tenant.api.get(`/devices/${device.id}`)).body.record_calls).to.equal(false);
    });

    it('then Content-Type application/json; charset=utf-8 is accepted', async () => {
      const reply = await fx.tenant.api.request('POST', '/sms', JSON.stringify({ phone: PHONE, message: 'x' }), {
        'content-type': 'application/json; charset=utf-8',
      });
      expect(reply.status).to.equal(201);
    });
  });

  describe('when the route does not exist', () => {
    // `/` is the control panel's page (test/http/panel.test.ts).
    for (const path of ['/api/ext/v1/nothing', '/api/ext/v1/sms/00000000-0000-4000-8000-000000000000/history', '/api/ext/v2/sms', '/nothing', '/panel']) {
      it(`then GET ${path} is a 404 route_not_found, with or without a key`, async () => {
        expectError(await fx.tenant.root.get(path), 404, 'route_not_found');
        expectError(await new ApiClient(fx.tenant.root.baseUrl, undefined).get(path), 404, 'route_not_found');
      });
    }

    it('then a POST with a body to an unknown route is a 404 route_not_found', async () => {
      expectError(await fx.tenant.api.post('/messages', { phone: PHONE, message: 'x' }), 404, 'route_not_found');
    });
  });

  describe('when the method is not one the route has', () => {
    const cases: [string, string, string[]][] = [
      ['PUT', '/sms', ['GET', 'POST']],
      ['DELETE', '/sms', ['GET', 'POST']],
      ['PATCH', '/sms', ['GET', 'POST']],
      ['PUT', '/devices', ['GET', 'POST']],
      ['POST', '/devices/00000000-0000-4000-8000-000000000000', ['GET', 'DELETE']],
      ['GET', '/devices/00000000-0000-4000-8000-000000000000/settings', ['PATCH']],
      ['PUT', '/devices/00000000-0000-4000-8000-000000000000/settings', ['PATCH']],
    ];
    for (const [method, path, allowed] of cases) {
      it(`then ${method} ${path} is a 405 method_not_allowed with Allow: ${allowed.join(', ')}`, async () => {
        const reply = await fx.tenant.api.request(method, path, method === 'GET' ? undefined : {});
        expectError(reply, 405, 'method_not_allowed');
        const allow = (reply.headers.get('allow') ?? '').split(',').map((m) => m.trim()).filter((m) => m && m !== 'HEAD' && m !== 'OPTIONS');
        expect(allow).to.have.members(allowed);
      });
    }
  });

  describe('when the request carries no valid key', () => {
    const expect401 = (reply: Awaited<ReturnType<ApiClient['get']>>) => {
      expectError(reply, 401, 'unauthorized');
      expect(reply.headers.get('www-authenticate') ?? '').to.match(/^Bearer\b/);
    };

    it('then no Authorization header is a 401 with WWW-Authenticate: Bearer', async () => {
      expect401(await anonymous.get('/sms'));
      expect401(await anonymous.post('/sms', { phone: PHONE, message: 'x' }));
      expect401(await anonymous.get('/devices'));
    });

    it('then an unknown key of the right shape is a 401', async () => {
      expect401(await new ApiClient(fx.tenant.api.baseUrl, `sgw_0123456789_${'A'.repeat(43)}`).get('/sms'));
    });

    it('then a known prefix with a wrong secret is a 401', async () => {
      expect401(await new ApiClient(fx.tenant.api.baseUrl, `${fx.tenant.key.slice(0, 15)}${'B'.repeat(43)}`).get('/sms'));
    });

    for (const key of ['abc', 'sgw_', 'sgw_xyz_123', 'x'.repeat(2000)]) {
      it(`then the malformed key "${key.slice(0, 20)}" is a 401`, async () => {
        expect401(await new ApiClient(fx.tenant.api.baseUrl, key).get('/sms'));
      });
    }

    it('then a revoked key is a 401 at once', async () => {
      const { key, row } = await fx.gateway.services.apiKeys.create(fx.tenant.accountId, ['sms:read']);
      const client = new ApiClient(fx.tenant.api.baseUrl, key);
      expect((await client.get('/sms')).status).to.equal(200);
      expect(await fx.gateway.services.apiKeys.revoke(row.prefix)).to.not.equal(undefined);
      expect401(await client.get('/sms'));
    });

    it('then a key revoked by its id is a 401 as well', async () => {
      const { key, row } = await fx.gateway.services.apiKeys.create(fx.tenant.accountId, ['sms:read']);
      await fx.gateway.services.apiKeys.revoke(row.id);
      expect401(await new ApiClient(fx.tenant.api.baseUrl, key).get('/sms'));
    });

    for (const header of ['Basic xyz', `Basic ${Buffer.from('user:pass').toString('base64')}`, 'Bearer', 'Bearer ', 'Token abc', '']) {
      it(`then Authorization "${header}" is a 401`, async () => {
        expect401(await withAuthorization(header)('GET', '/sms'));
      });
    }

    it('then the API key in another scheme is a 401', async () => {
      expect401(await withAuthorization(`Basic ${fx.tenant.key}`)('GET', '/sms'));
      expect401(await withAuthorization(fx.tenant.key)('GET', '/sms'));
    });
  });

  describe('when the key lacks the permission', () => {
    it('then it is a 403 forbidden that names the permission', async () => {
      const reader = await fx.keyWith(['sms:read']);
      const reply = await reader.post('/sms', { phone: PHONE, message: 'x' });
      expectError(reply, 403, 'forbidden');
      expect(reply.body.error.message).to.contain('sms:send');
    });

    it('then a key with no permissions at all is a 403 on every operation, not a 401', async () => {
      const none = await fx.keyWith([]);
      expectError(await none.get('/sms'), 403, 'forbidden');
      expectError(await none.get('/devices'), 403, 'forbidden');
      expectError(await none.post('/sms', { phone: PHONE, message: 'x' }), 403, 'forbidden');
    });
  });

  describe('when input is hostile', () => {
    // "No client input of any kind produces a 500."
    it('then a NUL character in the message is a 4xx, not a 500', async () => {
      const reply = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'a\u0000b' });
      expectErrorBody(reply);
      expect(detailFields(reply)).to.include('message');
    });

    it('then a NUL character in name_custom is a 4xx, not a 500', async () => {
      const { device } = await fx.registerDevice();
      const reply = await fx.tenant.api.patch(`/devices/${device.id}/settings`, { name_custom: 'a\u0000b' });
      expectErrorBody(reply);
      expect(detailFields(reply)).to.include('name_custom');
    });

    it('then a NUL character in a device name is a 4xx, not a 500', async () => {
      const reply = await fx.tenant.api.post('/devices', { name: 'a\u0000b' });
      expectErrorBody(reply);
    });

    it('then deeply nested JSON is a 400, not a 500', async () => {
      expectError(await fx.tenant.api.post('/sms', '['.repeat(5000) + ']'.repeat(5000)), 400);
      expectError(await fx.tenant.api.post('/sms', `{"phone": ${'['.repeat(5000)}${']'.repeat(5000)}, "message": "x"}`), 400);
    });

    it('then a __proto__ member is refused, not merged', async () => {
      const reply = await fx.tenant.api.post('/sms', `{"phone": "${PHONE}", "message": "x", "__proto__": {"no_store": true}}`);
      expectError(reply, 400);
    });

    it('then a compressed body that is not compressed is a 4xx', async () => {
      expectErrorBody(await fx.tenant.api.request('POST', '/sms', '{"phone": "x"}', { 'content-encoding': 'gzip' }));
      expectErrorBody(await fx.tenant.api.request('POST', '/sms', '{"phone": "x"}', { 'content-encoding': 'compress-me-not' }));
    });
  });

  describe('when the HTTP parser refuses the request before the application sees it', () => {
    /** Sends `raw` on a connection of its own and reads the answer until the gateway closes it. */
    async function answerTo(raw: Buffer | string): Promise<{ status: number; contentType: string | undefined; body: any }> {
      const socket = await openSocket(fx.gateway);
      socket.write(raw);
      const text = await untilClosed(socket, 5_000);
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headers] = head.split('\r\n');
      const contentType = headers.find((line) => /^content-type:/i.test(line))?.replace(/^content-type:\s*/i, '');
      return { status: Number(statusLine.split(' ')[1]), contentType, body: JSON.parse(rest.join('\r\n\r\n') || 'null') };
    }

    function expectRefusal(answer: Awaited<ReturnType<typeof answerTo>>, status: number, code: string): void {
      expect(answer.status).to.equal(status);
      expect(answer.contentType ?? '').to.match(/^application\/json\b/);
      expect(Object.keys(answer.body)).to.deep.equal(['error']);
      expect(answer.body.error.code).to.equal(code);
      expect(answer.body.error.message).to.be.a('string').and.not.empty;
    }

    it('then a search typed in Cyrillic, not percent-encoded (as curl sends it), is a 400 in the error shape that says to encode it', async () => {
      const key = fx.tenant.key;
      for (const path of ['/api/ext/v1/sms?search=Привет', '/sms?limit=10&search=Привет']) {
        const answer = await answerTo(Buffer.from(`GET ${path} HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${key}\r\n\r\n`, 'utf8'));
        expectRefusal(answer, 400, 'malformed_request');
        expect(answer.body.error.message).to.include('percent-encode');
      }
    });

    it('then a malformed header is a 400 malformed_request', async () => {
      expectRefusal(await answerTo('GET /api/ext/v1/sms HTTP/1.1\r\nHost: gateway\r\nX Bad: 1\r\n\r\n'), 400, 'malformed_request');
    });

    it('then headers over the size Node reads are a 431 headers_too_large', async () => {
      expectRefusal(await answerTo(`GET /api/ext/v1/sms HTTP/1.1\r\nHost: gateway\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431, 'headers_too_large');
    });
  });

  describe('X-Request-Id', () => {
    it('when the client sends a sane one, then it is echoed, on success and on error', async () => {
      const ok = await fx.tenant.api.request('GET', '/sms', undefined, { 'x-request-id': 'client-req.42:a_b' });
      expect(ok.headers.get('x-request-id')).to.equal('client-req.42:a_b');
      const failed = await anonymous.request('GET', '/sms', undefined, { 'x-request-id': 'abc-123' });
      expect(failed.status).to.equal(401);
      expect(failed.headers.get('x-request-id')).to.equal('abc-123');
    });

    it('when the client sends none, then one is generated, different for each request', async () => {
      const a = (await fx.tenant.api.get('/sms')).headers.get('x-request-id');
      const b = (await fx.tenant.root.get('/nothing')).headers.get('x-request-id');
      expect(a).to.be.a('string').and.not.empty;
      expect(b).to.be.a('string').and.not.empty;
      expect(a).not.to.equal(b);
    });

    for (const [name, value] of [
      ['spaces', 'two words'],
      ['markup', '<script>alert(1)</script>'],
      ['65 characters', 'a'.repeat(65)],
      ['a semicolon', 'id;1'],
      ['a slash', 'a/b'],
    ]) {
      it(`when the client sends one with ${name}, then a new one is generated instead`, async () => {
        const reply = await fx.tenant.api.request('GET', '/sms', undefined, { 'x-request-id': value! });
        const id = reply.headers.get('x-request-id');
        expect(id).to.be.a('string').and.not.empty;
        expect(id).not.to.equal(value);
        expect(id).to.match(/^[\w.:-]{1,64}$/);
      });
    }
  });
});
