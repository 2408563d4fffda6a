// API keys: an account's credentials for the API, the broker's operators and SMTP logins.
import { defineFeature } from '../../composition/feature.ts';
import { ApiKeyService } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    apiKeys: ApiKeyService;
  }
}

export const apiKeysFeature = defineFeature({
  name: 'api-keys',
  provides: ['apiKeys'],
  make: ({ db, logger }, need) => ({ apiKeys: new ApiKeyService(db, logger.child({ component: 'api-keys' }), need('invalidation')) }),
  listens: [
    {
      register: (events, need) => {
        const apiKeys = need('apiKeys');
        events.on('cache.changed_elsewhere', ({ kind, id }) => void (kind === 'api_key' && apiKeys.revokedElsewhere(id)));
        events.on('cache.news_missed', () => apiKeys.forgetCached());
      },
    },
  ],
  waysIn: async () => {
    const { apiKeyRoutes } = await import('../../api/extended/api-keys/routes.ts');
    return { routes: (s) => apiKeyRoutes(s.apiKeys) };
  },
});
