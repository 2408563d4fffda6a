// Liveness and readiness for orchestrators. /healthz: the process answers. /readyz: the
// process can do its work (the database answers; the broker joins with the device channel).
// Advisory checks are reported alongside but never make a node unready: Redis, with several
// nodes, whose absence slows what nodes learn from each other but stops no node serving.
import type Router from '@koa/router';
import type { Database } from '../../../storage/database.ts';

export type ReadinessCheck = () => Promise<void>;

export function mountHealth(
  router: Router,
  db: Database,
  extraChecks: Record<string, ReadinessCheck> = {},
  advisoryChecks: Record<string, ReadinessCheck> = {},
  /** True once the node is stopping with a drain (SHUTDOWN_DRAIN): not ready, whatever the checks say. */
  draining: () => boolean = () => false,
): void {
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const checks: Record<string, ReadinessCheck> = { database: async () => void (await db.raw('select 1')), ...extraChecks };
    const results: Record<string, string> = {};
    const advice: Record<string, string> = {};
    await Promise.all(
      [...Object.entries(checks), ...Object.entries(advisoryChecks)].map(async ([name, check]) => {
        const into = name in checks ? results : advice;
        try {
          await withTimeout(check(), 2_000);
          into[name] = 'ok';
        } catch {
          into[name] = 'failing';
        }
      }),
    );
    const ready = Object.values(results).every((result) => result === 'ok');
    // A balancer stops sending here, while everything still works for what it sent already.
    const status = draining() ? 'draining' : ready ? 'ok' : 'not_ready';
    ctx.status = status === 'ok' ? 200 : 503;
    ctx.body = { status, checks: { ...results, ...advice } };
  });
}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), ms);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
