// Real traffic for retention tests: SMS sent through a phone on the broker (taken and reported
// sent) and SMS the phone receives and forwards.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { deviceTopic } from '../../broker/topics.ts';
import type { TaskPhone } from '../support/task-phone.ts';
import type { Tenant } from '../support/tenant.ts';

export class PhoneTraffic {
  private sent = 0;

  constructor(
    private readonly tenant: Tenant,
    readonly phone: TaskPhone,
  ) {}

  /** Sends through the phone and waits until it reported the SMS sent; answers the SMS id. */
  async send(to: string, message: string): Promise<string> {
    const created = await this.tenant.api.request('POST', '/sms', { phone: to, message, device_id: this.phone.id }, { 'idempotency-key': randomUUID() });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    this.sent += 1;
    await this.phone.settle();
    await this.phone.until(this.sent);
    await this.phone.sendAll();
    return created.body.id as string;
  }

  /** The phone forwards an SMS it received (QoS 2: resolved once the gateway stored it). */
  async receive(from: string, message: string): Promise<void> {
    const payload = { id: randomUUID(), phone: from, message, received_at: new Date().toISOString(), sim_slot: 0 };
    await this.phone.client.publishAsync(deviceTopic(this.phone.id, 'incoming'), JSON.stringify(payload), { qos: 2 });
  }
}
