// A deployment's first day: every node is started at once (docker compose up, a Kubernetes
// rollout) on a database that is still empty. Each node migrates it and makes the first account
// if there is none; run together, they must not trip over each other: every node comes up, the
// schema is migrated once, and there is one first account with one key, announced by one node.
import { expect } from 'chai';
import { useDeployment } from './support/deployment.ts';
import { allAccountNames, allApiKeyCount, allUserCount } from '../support/test-data.ts';

const NODES = ['a', 'b', 'c'];

describe('multi-node: first start of several nodes at once on an empty database', function () {
  this.timeout(90_000);
  const deployment = useDeployment({ nodes: [], fresh: true });

  it('when three nodes start at the same moment, then all of them serve, and exactly one first account, key and administrator exist', async () => {
    const started = await Promise.allSettled(NODES.map((name) => deployment.startNode(name)));
    const failed = started.flatMap((result, i) => (result.status === 'rejected' ? [`${NODES[i]}: ${String(result.reason).split('\n').slice(0, 4).join(' | ')}`] : []));
    // knex keeps its migration lock in a table of one row; say what it holds when a node did not start.
    const lock = failed.length > 0 ? await deployment.db('knex_migrations_lock').select().catch((error: Error) => error.message) : [];
    expect(failed, `nodes that did not start (migration lock table: ${JSON.stringify(lock)})`).to.deep.equal([]);
    // A node makes the first account once it listens, the administrator last (a password hash
    // later): counted before its announcement, the users table was still empty once.
    await Promise.any(NODES.map((name) => deployment.node(name).nextMessage('first start', 30_000)));

    expect(await allAccountNames(deployment.db)).to.deep.equal(['default']);
    expect(await allApiKeyCount(deployment.db), 'API keys').to.equal(1);
    expect(await allUserCount(deployment.db), 'users').to.equal(1);
    const announcing = NODES.filter((name) => deployment.node(name).count('first start') > 0);
    expect(announcing, 'nodes that wrote the first-start file').to.have.length(1);
    for (const name of NODES) {
      const ready = await fetch(`${deployment.node(name).baseUrl}/readyz`);
      expect(ready.status, `/readyz of ${name}`).to.equal(200);
      await ready.arrayBuffer();
    }
  });
});
