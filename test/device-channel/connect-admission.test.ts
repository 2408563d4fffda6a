// Devices and admission control: a saturated gateway turns devices away at once, as the API
// answers 503 with Retry-After. A CONNECT that reaches it is answered CONNACK 3 (server
// unavailable) without a credential check, and the same device connects, after its back-off
// (docs/devices.md, rule 1), once the gateway has caught up.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { registerDevice } from '../support/tenant.ts';
import { eventually } from '../support/eventually.ts';

/** Keeps the event loop busy in 100 ms slices (with a turn between them) until `done` says so. */
async function saturateUntil(done: () => boolean, limitMs = 10_000): Promise<void> {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > limitMs) throw new Error('the gateway never judged itself saturated');
    const until = performance.now() + 100;
    while (performance.now() < until);
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

describe('device CONNECTs to a saturated gateway', function () {
  this.timeout(20_000);
  const fx = useGateway({ config: { admission: { maxInFlight: 100_000, targetLatencyMs: 0, maxEventLoopDelayMs: 50 } } });

  it('are answered CONNACK 3 while the event loop stays saturated, and accepted once it is not', async () => {
    const { device, token } = await registerDevice(fx.gateway, fx.tenant);
    const admission = fx.gateway.services.admission;
    const before = fx.gateway.services.metrics.value('mqtt_connect_unavailable_total', { reason: 'overloaded' });

    // Saturated, and kept so while the CONNECT travels: it is handled between two busy slices.
    await saturateUntil(() => admission.saturated());
    let answered = false;
    const refusal = fx.clients.refused({ clientId: device.id, username: device.id, password: token }).finally(() => (answered = true));
    await saturateUntil(() => answered);
    expect((await refusal).code).to.equal(3);
    expect(fx.gateway.services.metrics.value('mqtt_connect_unavailable_total', { reason: 'overloaded' })).to.equal(before + 1);

    await eventually('the event loop no longer saturated', () => !admission.saturated());
    const raw = await fx.clients.device(device.id, token);
    expect(raw.closed).to.equal(false);
  });
});
