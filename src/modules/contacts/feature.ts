// Contacts, groups of contacts and message templates, and sending to them.
import { defineFeature } from '../../composition/feature.ts';
import { ContactService } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** Contacts, groups of contacts and message templates. */
    contacts: ContactService;
  }
}

export const contactsFeature = defineFeature({
  name: 'contacts',
  provides: ['contacts'],
  make: ({ db, config, clock }) => ({ contacts: new ContactService(db, clock, config.defaultPhoneRegion) }),
  waysIn: async () => {
    const { contactSendRoutes } = await import('../../api/extended/contacts/send-routes.ts');
    const { contactRoutes } = await import('../../api/extended/contacts/routes.ts');
    return { routes: (s) => [...contactSendRoutes(s), ...contactRoutes(s.contacts)] };
  },
});
