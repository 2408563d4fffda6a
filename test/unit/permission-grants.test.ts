// A key made with every permission (the first-start key, `keys create --permissions all`) means
// "everything": a permission added later must reach the keys that held every one before it, by a
// migration that grants it (as the upstream permissions' did), or an upgraded gateway's key is
// refused where a fresh install's is not. This holds the newest such migration to the list the
// code grants "all" today: adding a permission fails here until a migration grants it.
import { expect } from 'chai';
import { ALL_ORDINARY } from '../../src/modules/api-keys/permissions.ts';
import { ALL_BEFORE, NEW_PERMISSIONS } from '../../db/migrations/20261210_054_upstreams_for_all_keys.ts';

describe('permissions granted to keys that held every one', () => {
  it('the newest granting migration leaves such a key with every ordinary permission of today', () => {
    const afterUpgrade = [...new Set([...ALL_BEFORE, ...NEW_PERMISSIONS])].sort();
    expect(afterUpgrade, 'a permission no migration grants to "all" keys: add a migration like 20261210_054').to.deep.equal([...ALL_ORDINARY].sort());
  });
});
