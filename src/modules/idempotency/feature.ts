// Idempotency keys: a request repeated with the same key answers what the first one did.
import { defineFeature } from '../../composition/feature.ts';
import { IdempotencyService } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    idempotency: IdempotencyService;
  }
}

export const idempotencyFeature = defineFeature({
  name: 'idempotency',
  provides: ['idempotency'],
  make: ({ db, clock }) => ({ idempotency: new IdempotencyService(db, clock) }),
});
