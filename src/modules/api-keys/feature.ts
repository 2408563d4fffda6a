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
  routes: async ({ apiKeys }) => {
    const { apiKeyRoutes } = await import('../../api/extended/api-keys/routes.ts');
    return apiKeyRoutes(apiKeys);
  },
});
