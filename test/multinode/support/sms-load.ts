// A steady stream of SMS through several nodes' APIs, each named for a phone on one node or
// another (so that the same stream tests delivery within a node and across nodes), or for none
// (the account's pool). Every request's answer is kept: a refused SMS is a failure the test
// reports, never a retry.
import type { SimulatedDevice } from '../../../src/simulator/device.ts';
import type { ApiClient } from '../../support/tenant.ts';
import { PHONE_NUMBER } from './sms.ts';

/** One way in and one phone out: the SMS is created through `via` (the API of a node, or a balancer's choice of one) for `phone`, or for the pool. */
export interface Route {
  name: string;
  via: ApiClient | (() => ApiClient);
  phone?: SimulatedDevice;
}

export interface Sent {
  route: Route;
  /** The SMS id; undefined when the node refused it. */
  id: string | undefined;
  status: number;
  at: number;
}

export class SmsLoad {
  readonly sent: Sent[] = [];
  private running: Promise<void> | undefined;
  private stopping = false;

  /** `gapMs`: pause between two requests (the load's pace). */
  constructor(
    private readonly routes: Route[],
    private readonly gapMs: number,
  ) {}

  start(): void {
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  /** Requests a node did not answer 201. */
  get refused(): Sent[] {
    return this.sent.filter((sent) => sent.status !== 201);
  }

  private async loop(): Promise<void> {
    for (let i = 0; !this.stopping; i++) {
      const route = this.routes[i % this.routes.length]!;
      let status = 0;
      let id: string | undefined;
      try {
        const via = typeof route.via === 'function' ? route.via() : route.via;
        const reply = await via.post('/sms', { phone: PHONE_NUMBER, message: `load ${route.name} #${i}`, ...(route.phone ? { device_id: route.phone.id } : {}) });
        status = reply.status;
        if (status === 201) id = reply.body.id as string;
      } catch {
        // no answer at all (status 0): counted as refused
      }
      this.sent.push({ route, id, status, at: performance.now() });
      await new Promise((resolve) => setTimeout(resolve, this.gapMs));
    }
  }
}
