// News from other nodes, as it enters the event seam: another node changed something this node
// may have cached (a revoked key, a deleted device, changed webhooks...), or this node may have
// missed such news while its link to Redis was down. Whoever caches hears these like any other
// event (their features register the listeners); CacheInvalidation only carries them.
import type { CacheKind } from './invalidation.ts';

export interface CacheEvents {
  /** Another node changed what `id` names, of this kind: drop what is cached of it. */
  'cache.changed_elsewhere': { kind: CacheKind; id: string };
  /** News may have been missed (Redis was unreachable): drop every cache of such things. */
  'cache.news_missed': Record<string, never>;
}
