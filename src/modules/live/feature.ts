// The control panel's live event streams (GET /events): ids and states, fed by the event seam.
import { defineFeature } from '../../composition/feature.ts';
import { LiveHub } from './hub.ts';
import { liveListeners } from './listeners.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** The control panel's live event streams. */
    live: LiveHub;
  }
}

export const liveFeature = defineFeature({
  name: 'live',
  provides: ['live'],
  make: ({ parts }) => ({ live: new LiveHub(parts.cluster?.live) }),
  listens: [
    {
      // Only while someone watches: with no panel open, an SMS's events call no live listener.
      register: (events, need) => {
        const hub = need('live');
        hub.whileWatched(() => events.listenAll(liveListeners(hub)));
      },
    },
  ],
  // Event streams never end by themselves: they end as the server closes, or closing it waits for them.
  runs: ({ live }) => [{ name: 'live streams', start: () => {}, stop: () => live.endAll(), stopsIn: 'requests' }],
  waysIn: async () => {
    const { liveRoutes } = await import('../../api/extended/live/routes.ts');
    return { routes: (s) => liveRoutes(s.live) };
  },
});
