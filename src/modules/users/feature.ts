// The control panel's users of an account, with their roles and passwords.
import { defineFeature } from '../../composition/feature.ts';
import { UserService } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    users: UserService;
  }
}

export const usersFeature = defineFeature({
  name: 'users',
  provides: ['users'],
  make: ({ db, logger, config }, need) => ({ users: new UserService(db, logger.child({ component: 'users' }), need('events'), config.sessions.passwordHashCost) }),
  waysIn: async () => {
    const { userRoutes } = await import('../../api/extended/users/routes.ts');
    return { routes: (s) => userRoutes(s.users) };
  },
});
