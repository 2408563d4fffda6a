// A receiver that takes its time holds back only its own events. Two webhooks hear the same SMS;
// one's receiver does not answer until the test lets it, the other's answers at once. The first
// event of the SMS goes to both in one claim, and the next event of each goes out only once the
// previous one is recorded: the prompt receiver's events must not wait for the silent one's
// attempt to end (up to the webhook timeout, 20 s here) before they are recorded and followed.
import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Received } from '../support/receiver.ts';
import { useGateway } from '../support/use-gateway.ts';
import { createWebhook, dropWebhooks, webhookConfig } from '../support/webhooks.ts';

const STATUSES = ['processing', 'sent', 'delivered'];

/** A receiver that answers 204 to each request only once released; until then the request hangs. */
class SilentReceiver extends EventEmitter<{ request: [] }> {
  readonly statuses: string[] = [];
  answered = 0;
  private released = false;
  private readonly held: ServerResponse[] = [];
  private server: Server | undefined;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        this.statuses.push(JSON.parse(body).data?.sms?.internal_status);
        if (this.released) this.answer(response);
        else this.held.push(response);
        this.emit('request');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hook`;
  }

  /** Answers the requests held so far, and every later one at once. */
  release(): void {
    this.released = true;
    for (const response of this.held.splice(0)) this.answer(response);
  }

  /** Resolves once `count` requests have arrived; fails after `timeoutMs`. */
  until(count: number, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.statuses.length < count) return;
        clearTimeout(timer);
        this.off('request', check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.off('request', check);
        reject(new Error(`the silent receiver got ${this.statuses.length} of ${count} requests within ${timeoutMs} ms`));
      }, timeoutMs);
      this.on('request', check);
      check();
    });
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private answer(response: ServerResponse): void {
    response.writeHead(204).end();
    this.answered++;
  }
}

function statusOf(received: Received): string {
  return received.json?.data?.sms?.internal_status;
}

describe('webhooks: a slow receiver holds back only its own events', () => {
  // Long enough that the silent receiver's attempt is still on its way when the test looks.
  const fx = useGateway({ config: { webhooks: webhookConfig({ timeoutMs: 20_000 }) } });
  afterEach(async () => dropWebhooks(fx.gateway, [fx.tenant.accountId]));

  it("when one webhook's receiver hangs, then another webhook's ordered events still go out in order meanwhile", async function () {
    this.timeout(30_000);
    const silent = fx.track(new SilentReceiver());
    await silent.start();
    const prompt = await fx.receiver();
    await createWebhook(fx.tenant, silent.url, ['sms.status_changed']);
    await createWebhook(fx.tenant, prompt.url, ['sms.status_changed']);
    await fx.connectDevice();

    const reply = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'one receiver is slow' });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    await silent.until(1, 5_000);
    const promptEvents = await prompt.waitFor(3, (received) => received.json?.data?.sms?.id === reply.body.id, 5_000);
    expect(promptEvents.map(statusOf), 'the prompt receiver, in order').to.deep.equal(STATUSES);
    expect({ requests: silent.statuses, answered: silent.answered }, 'the silent receiver still holds its first event').to.deep.equal({ requests: ['processing'], answered: 0 });

    silent.release();
    await silent.until(3, 5_000);
    expect(silent.statuses, 'the silent receiver, once it answers, in order').to.deep.equal(STATUSES);
  });
});
