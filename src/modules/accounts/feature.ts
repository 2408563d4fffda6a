// Accounts: who owns everything else, enabled or disabled by an instance administrator.
import { defineFeature } from '../../composition/feature.ts';
import { AccountService } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    accounts: AccountService;
  }
}

export const accountsFeature = defineFeature({
  name: 'accounts',
  provides: ['accounts'],
  make: ({ db, logger }, need) => ({ accounts: new AccountService(db, logger.child({ component: 'accounts' }), need('invalidation')) }),
  // Deleting an account takes everything it owns along: the route is handed every service.
  routes: async (services) => {
    const { accountRoutes } = await import('../../api/extended/accounts/routes.ts');
    return accountRoutes(services.accounts, services.users, services);
  },
});
