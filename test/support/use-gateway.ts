// The one setup most test files share: a real gateway started in `before`, a fresh tenant for
// every test, and whatever the tests open (phones, raw MQTT clients, receivers, more gateways)
// closed afterwards, even when a test failed. Call useGateway() inside a describe; the handle
// it returns is filled in by the hooks it registers, so read its fields inside hooks and tests.
//
//   describe('something', () => {
//     const fx = useGateway({ config: { failoverAfterMs: 300 } });
//     it('works', async () => {
//       const phone = await fx.connectDevice();
//       await fx.tenant.api.post('/sms', { ... });
//     });
//   });
import type { Config } from '../../src/config.ts';
import type { Clock } from '../../src/common/clock.ts';
import type { Gateway } from '../../src/gateway.ts';
import type { Permission } from '../../src/modules/api-keys/permissions.ts';
import type { SimulatedDevice, SimulatedDeviceOptions } from '../../src/simulator/device.ts';
import { connectDevice } from './devices.ts';
import { startGateway } from './gateway.ts';
import { mqttUrl, RawClients } from './mqtt.ts';
import { Receiver } from './receiver.ts';
import { TaskPhone } from './task-phone.ts';
import { createTenant, keyWith, registerDevice, type ApiClient, type Tenant } from './tenant.ts';

export interface UseGatewayOptions {
  /** Config overrides for the gateway; a function is called in `before` (e.g. for a fresh data directory). */
  config?: Partial<Config> | (() => Partial<Config>);
  /** The gateway's clock, e.g. a ManualClock the tests move; the system clock when absent. */
  clock?: Clock;
  /** A fresh tenant before every test (the default), one tenant for the whole describe, or none. */
  tenant?: 'each' | 'once' | 'none';
  /** How to start the gateway, for a test that must watch the start itself; startGateway by default. */
  start?: (config: Partial<Config>, clock?: Clock) => Promise<Gateway>;
}

type Cleanup = () => unknown;

export class GatewayFixture {
  private started: Gateway | undefined;
  private current: Tenant | undefined;
  /** Cleanups of what was opened inside a test (closed after it) and outside one (closed at the end). */
  private readonly perTest: Cleanup[] = [];
  private readonly perSuite: Cleanup[] = [];
  private inTest = false;
  /** Raw MQTT clients on the gateway's TCP listener; every one is ended after each test. */
  readonly clients = new RawClients(() => this.mqttUrl);

  constructor(readonly options: UseGatewayOptions = {}) {}

  get gateway(): Gateway {
    if (!this.started) throw new Error('useGateway: the gateway is not started yet (read it inside a hook or a test)');
    return this.started;
  }

  /** The tenant of the running test (or of the describe, with tenant: 'once'). */
  get tenant(): Tenant {
    if (!this.current) throw new Error('useGateway: no tenant (read it inside a test, and not with tenant: "none")');
    return this.current;
  }

  get clock(): Clock | undefined {
    return this.options.clock;
  }

  /** http://127.0.0.1:<port> of the gateway. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.gateway.httpPort}`;
  }

  get mqttUrl(): string {
    return mqttUrl(this.gateway);
  }

  /** Another account with its own key: for "another account cannot see it" tests. */
  newTenant(permissions?: readonly Permission[], gateway: Gateway = this.gateway): Promise<Tenant> {
    return createTenant(gateway, permissions);
  }

  /** Another key of the current tenant, holding only `permissions`. */
  keyWith(permissions: Permission[], tenant: Tenant = this.tenant): Promise<ApiClient> {
    return keyWith(this.gateway, tenant, permissions);
  }

  /** Registers a device of the current tenant without connecting it. */
  registerDevice(name?: string, tenant: Tenant = this.tenant) {
    return registerDevice(this.gateway, tenant, name);
  }

  /** A simulated phone of the current tenant, connected; stopped after the test. */
  async connectDevice(options: Partial<SimulatedDeviceOptions> = {}, tenant: Tenant = this.tenant): Promise<SimulatedDevice> {
    return this.track(await connectDevice(this.gateway, tenant, options));
  }

  /** A phone that reports only when the test says so (TaskPhone), connected; stopped after the test. */
  async taskPhone(settings: Record<string, unknown> = {}, tenant: Tenant = this.tenant): Promise<TaskPhone> {
    return this.track(await TaskPhone.connect(this.gateway, tenant, settings));
  }

  /** A local webhook receiver, listening; stopped after the test. */
  async receiver(): Promise<Receiver> {
    const receiver = this.track(new Receiver());
    await receiver.start();
    return receiver;
  }

  /**
   * Another gateway (on the same database with PostgreSQL), stopped after the test or, when
   * started in a `before`, at the end of the describe. Stopping it earlier is fine: a test that
   * restarts a gateway stops it itself.
   */
  async startGateway(overrides: Partial<Config> = {}, clock?: Clock): Promise<Gateway> {
    return this.track(stopsOnce(await startGateway(overrides, clock)));
  }

  /** Closes `thing` (anything with stop()) after the test, or at the end of the describe when opened outside a test. */
  track<T extends { stop(): unknown }>(thing: T): T {
    // A phone the test already killed, or a gateway it stopped, may fail to close a second
    // time; what matters here is that nothing is left open.
    this.onCleanup(async () => {
      await Promise.resolve(thing.stop()).catch(() => undefined);
    });
    return thing;
  }

  /** Runs `cleanup` after the test, or at the end of the describe when registered outside a test. */
  onCleanup(cleanup: Cleanup): void {
    (this.inTest ? this.perTest : this.perSuite).push(cleanup);
  }

  /** @internal the hooks useGateway registers. */
  async setUp(): Promise<void> {
    const { config = {}, clock, start = startGateway } = this.options;
    const gateway = stopsOnce(await start(typeof config === 'function' ? config() : config, clock));
    this.started = gateway;
    // Closed in reverse order: whatever was registered before the start (a data directory)
    // outlives the gateway, whatever is opened after it (clients, phones) closes before it.
    this.perSuite.push(() => gateway.stop(), () => this.clients.endAll());
    if (this.options.tenant === 'once') this.current = await createTenant(this.started);
  }

  /** @internal */
  async beforeEach(): Promise<void> {
    this.inTest = true;
    if ((this.options.tenant ?? 'each') === 'each') this.current = await createTenant(this.gateway);
  }

  /** @internal */
  async afterEach(): Promise<void> {
    this.inTest = false;
    await closeAll([() => this.clients.endAll(), ...this.perTest.splice(0)]);
  }

  /** @internal */
  async tearDown(): Promise<void> {
    await closeAll(this.perSuite.splice(0));
  }
}

/** Registers the hooks of a gateway fixture in the enclosing describe and returns its handle. */
export function useGateway(options: UseGatewayOptions = {}): GatewayFixture {
  const fixture = new GatewayFixture(options);
  before(async function () {
    // Added now, the teardown comes after every `after` hook the describe itself declares (those
    // may still use the gateway); mocha runs after-all hooks in the order they were added.
    this.test?.parent?.afterAll('useGateway: close what the describe opened', () => fixture.tearDown());
    // The embedded database migrates on every start: give it the time a slow machine needs.
    this.timeout(Math.max(this.timeout(), 60_000));
    await fixture.setUp();
  });
  beforeEach(() => fixture.beforeEach());
  afterEach(() => fixture.afterEach());
  return fixture;
}

/**
 * Closes in reverse order of opening (a phone before the gateway it is connected to), each one
 * even when an earlier one failed; then reports the first failure.
 */
async function closeAll(cleanups: Cleanup[]): Promise<void> {
  const failures: unknown[] = [];
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `${failures.length} things failed to close`);
}

/**
 * Makes a second stop() a no-op that waits for the first: a test may stop a gateway itself (to
 * restart it, or to see it stop) and the fixture still closes whatever is left afterwards.
 */
function stopsOnce(gateway: Gateway): Gateway {
  const stop = gateway.stop.bind(gateway);
  let stopping: Promise<void> | undefined;
  gateway.stop = () => (stopping ??= stop());
  return gateway;
}
