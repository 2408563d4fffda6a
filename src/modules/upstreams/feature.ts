// Upstream routes: providers (an SMSC over SMPP, a service speaking Twilio's Messages API) that
// carry an account's SMS when its rules say its phones cannot. It provides the upstreams and the
// routes behind /upstreams and /routes, keeps this node's links to the providers, and routes the
// SMS of accounts that have routes (routing/router.ts); the SMS of others it never looks at.
import { defineFeature } from '../../composition/feature.ts';
import { linkFactory } from './links/factory.ts';
import { UpstreamLinks } from './links/manager.ts';
import { UpstreamRouter } from './routing/router.ts';
import { UpstreamService } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** The account's upstreams and routes. */
    upstreams: UpstreamService;
    /** Carries the SMS of accounts with routes along their rules. */
    upstreamRouter: UpstreamRouter;
    /** This node's links to the providers. */
    upstreamLinks: UpstreamLinks;
  }
}

export const upstreamsFeature = defineFeature({
  name: 'upstreams',
  provides: ['upstreams', 'upstreamRouter', 'upstreamLinks'],
  make: ({ config, db, clock, logger: parent }, need) => {
    const logger = parent.child({ component: 'upstreams' });
    const devices = need('devices');
    const presence = need('presence');
    let router: UpstreamRouter | undefined;
    const links = new UpstreamLinks(
      linkFactory({ guard: need('guard'), publicUrl: config.publicUrl, clock, logger }),
      need('secrets'),
      {
        receipt: (upstream, receipt) => router!.receipt(upstream, receipt),
        incoming: (upstream, message) => router!.incoming(upstream, message),
      },
      logger,
    );
    router = new UpstreamRouter({
      db,
      clock,
      links,
      tasks: need('tasks'),
      phonesOnline: async (accountId) => {
        const online = (await devices.liveGroups(accountId)).filter((device) => presence.isOnline(device.id));
        return { any: online.length > 0, groups: new Set(online.flatMap((device) => (device.group_name ? [device.group_name] : []))) };
      },
      storeIncoming: async (upstream, message) => void (await need('incoming').storeFromUpstream(upstream.account_id, upstream.id, { from: message.from, text: message.text, at: message.at })),
      logger,
    });
    return { upstreamLinks: links, upstreamRouter: router, upstreams: new UpstreamService(db, need('secrets'), links, clock, router) };
  },
  listens: [
    {
      register: (events, need, { logger }) => {
        const router = need('upstreamRouter');
        events.on('sms.queued', (sms) => router.queued(sms));
        const phonesLeft = (accountId: string) =>
          router.phonesLeft(accountId).catch((error: unknown) => logger.warn({ err: error, accountId }, 'routes not looked at again after the phones went offline'));
        events.on('device.offline', ({ accountId }) => phonesLeft(accountId));
        // A phone moved out of a device group, or deleted, may have been the group's last online.
        events.on('device.settings_changed', (device) => phonesLeft(device.account_id));
        events.on('device.deleted', (device) => phonesLeft(device.account_id));
      },
    },
  ],
  runs: ({ upstreamRouter }) => [{ name: 'upstream routing', start: () => upstreamRouter.start(), stop: () => upstreamRouter.stop(), stopsIn: 'work' }],
  waysIn: async () => {
    const { upstreamRoutes } = await import('../../api/extended/upstreams/routes.ts');
    const { mountUpstreamCallbacks } = await import('../../api/upstream-callbacks/routes.ts');
    return {
      routes: (s) => upstreamRoutes(s.upstreams),
      mount: (router, s, config) => mountUpstreamCallbacks(router, { links: s.upstreamLinks, publicUrl: config.publicUrl, bodyLimitBytes: config.bodyLimitBytes }),
    };
  },
});
