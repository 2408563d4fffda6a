// The composition that makes the gateway out of its features: each service made once, when first
// needed, whatever the order features are declared in; a circle or a name provided twice is
// refused with the names; a feature that is off provides nothing; listeners are registered in the
// declared order (in a command, only those meant for commands); what runs stops phase by phase.
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { systemClock } from '../../src/common/clock.ts';
import { Composition, startAll, stopAll } from '../../src/composition/composition.ts';
import { coreFeature } from '../../src/composition/core-feature.ts';
import type { FeatureContext, SomeFeature } from '../../src/composition/feature.ts';
import type { Database } from '../../src/storage/database.ts';

/** Features here make plain values under the names of real services: the composition never looks inside them. */
const as = <T>(value: unknown): T => value as T;

function context(): FeatureContext {
  return { config: loadConfig({}), db: as<Database>({}), logger: createLogger('silent'), clock: systemClock, parts: {} };
}

describe('composition: making the gateway out of features', () => {
  it('when a feature needs one declared after it, then that one is made first, and each once', () => {
    const made: string[] = [];
    const messages: SomeFeature = {
      name: 'messages',
      provides: ['messages'],
      make: (_context, need) => {
        const devices = need('devices');
        made.push('messages');
        return { messages: as({ devices }) };
      },
    };
    const devices: SomeFeature = {
      name: 'devices',
      provides: ['devices'],
      make: () => {
        made.push('devices');
        return { devices: as({ name: 'the devices' }) };
      },
    };
    const services = new Composition([coreFeature, messages, devices], context(), 'gateway').makeAll();
    expect(made).to.deep.equal(['devices', 'messages']);
    expect((services.messages as unknown as { devices: unknown }).devices).to.equal(services.devices);
  });

  it('when two features need each other, then making them fails naming the circle', () => {
    const a: SomeFeature = { name: 'a', provides: ['messages'], make: (_context, need) => ({ messages: as(need('devices')) }) };
    const b: SomeFeature = { name: 'b', provides: ['devices'], make: (_context, need) => ({ devices: as(need('messages')) }) };
    expect(() => new Composition([coreFeature, a, b], context(), 'gateway').makeAll()).to.throw('features need each other in a circle: a -> b -> a');
  });

  it('when two features provide one name, then the composition refuses them', () => {
    const a: SomeFeature = { name: 'a', provides: ['devices'], make: () => ({ devices: as({}) }) };
    const b: SomeFeature = { name: 'b', provides: ['devices'], make: () => ({ devices: as({}) }) };
    expect(() => new Composition([coreFeature, a, b], context(), 'gateway')).to.throw('"devices" is provided by two features: a and b');
  });

  it('when a feature is off, then it makes nothing, registers nothing, and what needs it says so', () => {
    let heard = false;
    const off: SomeFeature = {
      name: 'smpp-listener',
      provides: ['smppServer'],
      enabled: () => false,
      make: () => {
        throw new Error('made while off');
      },
      listens: [{ register: () => void (heard = true) }],
    };
    const composition = new Composition([coreFeature, off], context(), 'gateway');
    const services = composition.makeAll();
    expect(services.smppServer).to.equal(undefined);
    expect(heard).to.equal(false);
    expect(() => composition.need('smppServer')).to.throw('no feature provides "smppServer" here');
  });

  it('when a command makes only what it asks for, then the rest is not made and only the listeners meant for commands are registered', () => {
    const registered: string[] = [];
    const devices: SomeFeature = {
      name: 'devices',
      provides: ['devices'],
      make: () => ({ devices: as({}) }),
      listens: [{ register: () => void registered.push('gateway only') }, { register: () => void registered.push('commands too'), inCommands: true }],
    };
    const messages: SomeFeature = {
      name: 'messages',
      provides: ['messages'],
      make: () => {
        throw new Error('a command made what it did not ask for');
      },
    };
    const services = new Composition([coreFeature, devices, messages], context(), 'command').makeOnly(['devices']);
    expect(Object.keys(services)).to.include('devices').and.not.include('messages');
    expect(registered).to.deep.equal(['commands too']);
  });

  it('when the gateway stops, then what runs stops phase by phase, in the order started within a phase', async () => {
    const log: string[] = [];
    const part = (name: string, stopsIn: 'work' | 'phones-gone' | 'last' | 'ways-in') => ({
      name,
      start: () => void log.push(`start ${name}`),
      stop: () => void log.push(`stop ${name}`),
      stopsIn,
    });
    const running = [part('sweep', 'phones-gone'), part('dispatcher', 'work'), part('flush', 'last'), part('listener', 'ways-in'), part('sender', 'phones-gone')];
    await startAll(running);
    await stopAll(running);
    expect(log).to.deep.equal([
      'start sweep',
      'start dispatcher',
      'start flush',
      'start listener',
      'start sender',
      'stop listener',
      'stop dispatcher',
      'stop sweep',
      'stop sender',
      'stop flush',
    ]);
  });

  it('when a part fails to start, then those started are stopped and the failure is thrown', async () => {
    const log: string[] = [];
    const running = [
      { name: 'first', start: () => void log.push('start first'), stop: () => void log.push('stop first'), stopsIn: 'work' as const },
      {
        name: 'second',
        start: () => {
          throw new Error('port taken');
        },
        stop: () => void log.push('stop second'),
        stopsIn: 'work' as const,
      },
    ];
    let failure: unknown;
    await startAll(running).catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('port taken');
    expect(log).to.deep.equal(['start first', 'stop first']);
  });
});
