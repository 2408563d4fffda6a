// The control panel's logins: sessions behind a cookie, and the throttle of failed logins.
import { defineFeature } from '../../composition/feature.ts';
import { LoginThrottle } from './login-throttle.ts';
import { SessionService } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    sessions: SessionService;
    /** Failed logins per client address (the shared throttle) and per email. */
    loginThrottle: LoginThrottle;
  }
}

export const sessionsFeature = defineFeature({
  name: 'sessions',
  provides: ['sessions', 'loginThrottle'],
  make: ({ db, config, clock, logger }, need) => ({
    sessions: new SessionService(db, need('users'), config.sessions, clock, logger.child({ component: 'sessions' }), need('accounts')),
    // The login channel of the one throttle: per address and per email, apart from keys and phones.
    loginThrottle: new LoginThrottle(need('authThrottle')),
  }),
  listens: [
    {
      // A disabled user's sessions, or those of a user whose password was reset, end with the change.
      register: (events, need) => void events.listen('user.locked_out', { inTransaction: (trx, { userId }) => need('sessions').endAllOf(trx, userId) }),
      inCommands: true,
    },
  ],
  waysIn: async () => {
    const { sessionRoutes } = await import('../../api/extended/sessions/routes.ts');
    return { routes: (s, { session }) => sessionRoutes(s.sessions, s.loginThrottle, session) };
  },
});
