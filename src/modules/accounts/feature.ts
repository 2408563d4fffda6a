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
  listens: [
    {
      register: (events, need) => {
        const accounts = need('accounts');
        events.on('cache.changed_elsewhere', ({ kind, id }) => void (kind === 'account' && accounts.changedElsewhere(id)));
        events.on('cache.news_missed', () => accounts.forgetCached());
      },
    },
  ],
  waysIn: async () => {
    const { accountRoutes } = await import('../../api/extended/accounts/routes.ts');
    // Deleting an account takes everything it owns along: the route is handed every service.
    return { routes: (s) => accountRoutes(s.accounts, s.users, s) };
  },
});
