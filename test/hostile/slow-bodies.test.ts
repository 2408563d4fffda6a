// Hostile clients that announce a body and send it a byte at a time. Such a request must not hold
// an admission place while it waits for its body (another tenant's requests are served however
// many of them hang), and its body must arrive within HTTP_BODY_TIMEOUT or it is answered 408 and
// its connection closed. The deadline is a second here, so the tests stay short.
import { expect } from 'chai';
import type { Socket } from 'node:net';
import { useGateway } from '../support/use-gateway.ts';
import { openSocket, untilClosed } from '../support/raw-http.ts';
import { eventually } from '../support/eventually.ts';

const BODY_TIMEOUT_MS = 1_000;
const MAX_IN_FLIGHT = 8;
const SMS = { phone: '+79161234567', message: 'hostile' };

/** The request line and headers of a POST /sms announcing 1000 bytes, and its first byte. */
function slowPost(key: string | undefined, path = '/api/ext/v1/sms'): string {
  const auth = key ? `Authorization: Bearer ${key}\r\n` : '';
  return `POST ${path} HTTP/1.1\r\nHost: gateway\r\n${auth}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`;
}

describe('hostile clients: slow request bodies', function () {
  this.timeout(30_000);
  const fx = useGateway({
    config: () => ({
      admission: { maxInFlight: MAX_IN_FLIGHT, targetLatencyMs: 0, maxEventLoopDelayMs: 0 },
      httpLimits: { headersTimeoutMs: 10_000, bodyTimeoutMs: BODY_TIMEOUT_MS, maxConnectionsPerAddress: 1_000, maxConnections: undefined },
    }),
  });
  const sockets: Socket[] = [];
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
  });

  async function startSlowPost(key: string | undefined, path?: string): Promise<Socket> {
    const socket = await openSocket(fx.gateway);
    sockets.push(socket);
    socket.write(slowPost(key, path));
    return socket;
  }

  /** Until no request holds a place: each slow one has given its place back while it waits. */
  async function placesFreed(): Promise<void> {
    await eventually('no request in flight', () => fx.gateway.services.admission.current.inFlight === 0);
  }

  /**
   * What /readyz says of admission (its "admission" check). Read alone: the other checks (a
   * `select 1` answered within 2 s) speak of the machine's load, not of these clients.
   */
  async function admissionCheck(): Promise<string> {
    const body = (await (await fetch(`${fx.baseUrl}/readyz`)).json()) as { checks: Record<string, string> };
    return body.checks.admission ?? `no admission check in ${JSON.stringify(body)}`;
  }

  it('when a body does not arrive within HTTP_BODY_TIMEOUT, then the answer is 408 and the connection is closed', async () => {
    const before = fx.gateway.services.metrics.value('http_body_timeouts_total');
    const started = Date.now();
    const answer = await untilClosed(await startSlowPost(fx.tenant.key), BODY_TIMEOUT_MS + 2_000);
    expect(answer).to.match(/^HTTP\/1\.1 408 /);
    expect(answer).to.include('"code":"request_timeout"');
    expect(Date.now() - started).to.be.at.least(BODY_TIMEOUT_MS - 50);
    expect(fx.gateway.services.metrics.value('http_body_timeouts_total')).to.equal(before + 1);
  });

  it('when a request without a valid key trickles its body, then it is answered 401 at once and its connection closed at the deadline', async () => {
    const answer = await untilClosed(await startSlowPost(undefined), BODY_TIMEOUT_MS + 2_000);
    expect(answer).to.match(/^HTTP\/1\.1 401 /);
  });

  it(`when 50 slow bodies hang with one tenant's key, then another tenant's requests are served (HTTP_MAX_IN_FLIGHT ${MAX_IN_FLIGHT})`, async () => {
    const hostile = fx.tenant;
    const other = await fx.newTenant();
    for (let i = 0; i < 50; i++) await startSlowPost(hostile.key);
    await placesFreed();
    const refusedBefore = fx.gateway.services.admission.refusedCount('in_flight');
    const answers = await Promise.all(Array.from({ length: MAX_IN_FLIGHT }, () => other.api.post('/sms', SMS)));
    expect(answers.map((answer) => answer.status)).to.deep.equal(Array(MAX_IN_FLIGHT).fill(201));
    expect((await other.api.get('/devices')).status).to.equal(200);
    expect(fx.gateway.services.admission.refusedCount('in_flight')).to.equal(refusedBefore);
    expect(await admissionCheck(), 'nothing refused: admission ready').to.equal('ok');
  });

  it('when 50 slow bodies reach their deadline together, then their 408s take no place from anyone: nothing is refused and the gateway stays ready', async () => {
    const slow = [];
    for (let i = 0; i < 50; i++) slow.push(await startSlowPost(fx.tenant.key));
    await placesFreed();
    const refusedBefore = fx.gateway.services.admission.refusedCount('in_flight');
    const answers = await Promise.all(slow.map((socket) => untilClosed(socket, BODY_TIMEOUT_MS + 5_000)));
    expect(answers.filter((answer) => /^HTTP\/1\.1 408 /.test(answer))).to.have.length(50);
    // Answering a request whose body never came needs no place: had each taken one back to answer,
    // those past HTTP_MAX_IN_FLIGHT would count as refused, and a good client would be refused then.
    expect(fx.gateway.services.admission.refusedCount('in_flight'), 'refused while the 408s went out').to.equal(refusedBefore);
    expect(await admissionCheck(), 'admission ready').to.equal('ok');
  });

  it('when a slow body arrives in the end, within the deadline, then the request is served', async () => {
    const socket = await openSocket(fx.gateway);
    sockets.push(socket);
    const body = JSON.stringify(SMS);
    socket.write(
      `POST /api/ext/v1/sms HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${fx.tenant.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await placesFreed();
    socket.write(body.slice(5));
    expect(await untilClosed(socket, 5_000)).to.match(/^HTTP\/1\.1 201 /);
  });
});
