// A request whose transaction lost a race for locks (a deadlock, a serialization failure) wrote
// nothing and succeeds when retried: the client is told 503 with a short Retry-After, not 500,
// and the log line carries the SQLSTATE, never the failed statement with the request's values.
import { expect } from 'chai';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { pino } from 'pino';
import { errorHandler } from '../../src/http/middleware/error-handler.ts';

describe('the error handler, when a request loses a race for database locks', () => {
  async function answerTo(thrown: unknown) {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const app = new Koa();
    app.use(errorHandler(logger));
    app.use(() => {
      throw thrown;
    });
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const reply = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/ext/v1/sms`, { method: 'POST' });
      return { status: reply.status, retryAfter: reply.headers.get('retry-after'), body: (await reply.json()) as { error: { code: string } }, lines };
    } finally {
      server.close();
    }
  }

  for (const code of ['40P01', '40001']) {
    it(`then SQLSTATE ${code} is a 503 overloaded with Retry-After 1, logged without the statement`, async () => {
      const statement = "insert into sms (phone, message) values ('+79161234567', 'secret text') - deadlock detected";
      const answer = await answerTo(Object.assign(new Error(statement), { code }));
      expect(answer.status).to.equal(503);
      expect(answer.retryAfter).to.equal('1');
      expect(answer.body.error.code).to.equal('overloaded');
      expect(answer.lines.join('')).to.contain(code).and.not.contain('+79161234567').and.not.contain('secret text');
    });
  }

  it('then any other database error is still a 500 internal_error', async () => {
    const answer = await answerTo(Object.assign(new Error('syntax error'), { code: '42601' }));
    expect(answer.status).to.equal(500);
    expect(answer.body.error.code).to.equal('internal_error');
  });
});
