// When the live feed listens (src/modules/live/hub.ts): only while someone may watch. It starts
// with the first stream, stops with the last (of every account), starts again with the next, and
// with other nodes about (a relay) it listens from the start and never stops.
import { expect } from 'chai';
import { LiveHub, type LiveEvent, type LiveRelay, type LiveStream } from '../../src/modules/live/hub.ts';

function stream(heard: LiveEvent[] = []): LiveStream {
  return { permissions: new Set(['sms:read']), send: (event) => void heard.push(event), end: () => undefined };
}

const event: LiveEvent = { type: 'sms.status', permission: 'sms:read', data: { id: 'sms-1' } };

/** A feed that records its starts and stops, in order. */
function recordedFeed(hub: LiveHub): string[] {
  const steps: string[] = [];
  hub.whileWatched(() => {
    steps.push('listen');
    return () => void steps.push('stop');
  });
  return steps;
}

describe('LiveHub: listening while watched', () => {
  it('when no stream was ever opened on a single node, then the feed does not listen', () => {
    const hub = new LiveHub();
    expect(recordedFeed(hub)).to.deep.equal([]);
  });

  it('when the first stream opens, then the feed listens once, until the last stream of every account closes', () => {
    const hub = new LiveHub();
    const steps = recordedFeed(hub);
    const first = stream();
    const second = stream();
    hub.add('account-a', first);
    hub.add('account-b', second);
    hub.add('account-b', stream());
    expect(steps).to.deep.equal(['listen']);
    hub.remove('account-a', first);
    expect(steps, 'account-b still watches').to.deep.equal(['listen']);
    hub.remove('account-b', second);
    expect(steps, 'one stream of account-b is still open').to.deep.equal(['listen']);
    hub.endAll();
    expect(steps).to.deep.equal(['listen', 'stop']);
  });

  it('when a stream opens again after the last closed, then the feed listens again and the stream hears what is published', () => {
    const hub = new LiveHub();
    const steps = recordedFeed(hub);
    const first = stream();
    hub.add('account-a', first);
    hub.remove('account-a', first);
    const heard: LiveEvent[] = [];
    hub.add('account-a', stream(heard));
    expect(steps).to.deep.equal(['listen', 'stop', 'listen']);
    hub.publish('account-a', event);
    expect(heard).to.deep.equal([event]);
  });

  it('when the feed is wired while a stream is already open, then it listens at once', () => {
    const hub = new LiveHub();
    hub.add('account-a', stream());
    expect(recordedFeed(hub)).to.deep.equal(['listen']);
  });

  it('when other nodes may hold streams (a relay), then the feed listens from the start and never stops', () => {
    const relay: LiveRelay = { listening: () => true, opened: () => undefined, forward: () => undefined };
    const hub = new LiveHub(relay);
    const steps = recordedFeed(hub);
    const only = stream();
    hub.add('account-a', only);
    hub.remove('account-a', only);
    hub.endAll();
    expect(steps).to.deep.equal(['listen']);
  });
});
