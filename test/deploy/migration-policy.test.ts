// The upgrade policy's check of the migrations (scripts/migration-policy.ts, docs/deployment.md
// "Upgrading without downtime"): during a rolling upgrade nodes of the previous release run on
// the migrated database, so a migration's `up` only adds; what it takes away comes later, as a
// contract step naming its expand. The shipped migrations pass; made-up ones show what is refused.
import { expect } from 'chai';
import { migrations } from '../../db/migrations/index.ts';
import { contractMarker, judgeMigrations, listedMigrations, PRE_POLICY, upSource, type MigrationText } from '../../scripts/migration-policy.ts';

const EXPAND = '20261121_003_legacy_search';

function migration(name: string, up: string, extra = ''): MigrationText {
  return {
    name,
    source: `import type { Knex } from 'knex';
${extra}
export async function up(knex: Knex): Promise<void> {
${up}
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(\`alter table sms drop column whatever\`);
}
`,
  };
}

describe('migration policy: expand now, contract in a later release', function () {
  let shipped: MigrationText[];

  before(async () => {
    shipped = await listedMigrations();
  });

  /** The shipped migrations, then `extra`: the judgement of the last one. */
  const judgeAfterShipped = (extra: MigrationText) => judgeMigrations([...shipped, extra]).pop()!;

  it('when the shipped migrations are read, then none is refused and each destructive one says why it is allowed', () => {
    const judgements = judgeMigrations(shipped);
    expect(judgements.flatMap((j) => j.refusals.map((r) => `${j.name}: ${r}`))).to.deep.equal([]);
    const destructive = Object.fromEntries(judgements.filter((j) => j.destructive.length > 0).map((j) => [j.name, j.allowedAs]));
    expect(destructive).to.deep.equal({
      '20261122_005_delivery': 'before the policy',
      '20261125_014_webhook_chain_heads': 'before the policy',
      '20261204_042_fleet_health': 'wider check',
      '20261206_048_contract_sms_trigram_indexes': 'contract step',
      '20261209_053_contract_webhook_deliveries_chain': 'contract step',
      '20261211_055_sms_way_in_panel': 'wider check',
    });
    expect(judgements.map((j) => j.name)).to.deep.equal(migrations.map(([name]) => name));
  });

  it('when a shipped migration exports a contract marker, then it is the one its source declares', () => {
    for (const [name, module] of migrations) {
      const declared = (module as { contract?: unknown }).contract;
      const parsed = contractMarker(shipped.find((m) => m.name === name)!.source);
      expect(parsed, name).to.deep.equal(declared);
    }
  });

  it('when a new migration drops a column, then it is refused, named with the statement', () => {
    const judgement = judgeAfterShipped(migration('20270101_050_sms_phone', '  await knex.raw(`alter table sms drop column phone`);'));
    expect(judgement.refusals).to.have.length(1);
    expect(judgement.refusals[0]).to.match(/^drop column phone: drop column takes away/);
  });

  for (const [statement, kind] of [
    ['await knex.raw(`drop table sms_counts`);', 'drop table'],
    ["await knex.raw('alter table sms drop phone');", 'drop column'],
    ['await knex.raw(`alter table sms rename column phone to number`);', 'rename column'],
    ['await knex.raw(`alter table sms rename phone to number`);', 'rename column'],
    ['await knex.raw(`alter table sms rename to messages`);', 'rename to'],
    ['await knex.raw(`alter table sms alter column phone set not null`);', 'set not null'],
    ['await knex.raw(`alter table sms alter column phone type varchar(20)`);', 'alter column type'],
    ['await knex.raw(`alter table sms drop constraint sms_priority_range`);', 'drop constraint'],
    ['await knex.raw(`drop index concurrently if exists sms_pool`);', 'drop index'],
    ["await knex.schema.alterTable('sms', (t) => t.dropColumn('phone'));", 'drop column'],
    ["await knex.schema.alterTable('sms', (t) => t.text('phone').notNullable().alter());", 'alter column'],
    ["await knex.schema.renameTable('sms', 'messages');", 'rename table'],
    ['await knex.raw(`alter table sms add column campaign_id uuid not null`);', 'not null without default'],
  ] as const) {
    it(`when a new migration runs "${statement}", then it is refused as ${kind}`, () => {
      const judgement = judgeAfterShipped(migration('20270101_050_made_up', `  ${statement}`));
      expect(judgement.destructive.map((d) => d.kind)).to.deep.equal([kind]);
      expect(judgement.refusals).to.have.length(1);
    });
  }

  it('when a new migration only adds (a nullable column, a constant default, an index concurrently, a check not valid then validated), then it passes', () => {
    const judgement = judgeAfterShipped(
      migration(
        '20270101_050_sms_campaign',
        [
          '  await knex.raw(`alter table sms add column campaign_id uuid`);',
          "  await knex.raw(`alter table sms add column campaign_weight integer not null default 1`);",
          '  await knex.raw(`create index concurrently if not exists sms_campaign on sms (campaign_id)`);',
          '  await knex.raw(`alter table sms add constraint sms_campaign_weight check (campaign_weight > 0) not valid`);',
          '  await knex.raw(`alter table sms validate constraint sms_campaign_weight`);',
          '  // we never drop column phone here: a comment is not a statement',
          "  await knex.raw(`alter table devices alter column forward_incoming_sms drop default`);",
        ].join('\n'),
      ),
    );
    expect(judgement.destructive).to.deep.equal([]);
    expect(judgement.refusals).to.deep.equal([]);
  });

  it('when a new migration marked as a contract step of an existing earlier migration drops a column, then it passes', () => {
    const marker = `export const contract = { expandedIn: '${EXPAND}', why: "every node since 20261121_003 reads sms.number; nothing reads phone" };`;
    const judgement = judgeAfterShipped(migration('20270101_050_contract_sms_phone', '  await knex.raw(`alter table sms drop column phone`);', marker));
    expect(judgement.allowedAs).to.equal('contract step');
    expect(judgement.refusals).to.deep.equal([]);
  });

  it('when a contract step names a migration that does not exist, then it is refused', () => {
    const marker = `export const contract = { expandedIn: '20261121_003_no_such_expand', why: 'nothing reads phone' };`;
    const judgement = judgeAfterShipped(migration('20270101_050_contract_sms_phone', '  await knex.raw(`alter table sms drop column phone`);', marker));
    expect(judgement.refusals).to.deep.equal(['its contract step names 20261121_003_no_such_expand, which is no migration']);
  });

  it('when a contract step names a later migration, lacks a reason, or is not named as one, then it is refused', () => {
    const drop = '  await knex.raw(`alter table sms drop column phone`);';
    const namesLater = judgeMigrations([
      ...shipped,
      migration('20270101_050_contract_sms_phone', drop, `export const contract = { expandedIn: '20270102_051_sms_number', why: 'x' };`),
      migration('20270102_051_sms_number', '  await knex.raw(`alter table sms add column number text`);'),
    ]).at(-2)!;
    expect(namesLater.refusals).to.deep.equal(['its contract step names 20270102_051_sms_number, which does not come before it']);

    const noReason = judgeAfterShipped(migration('20270101_050_contract_sms_phone', drop, `export const contract = { expandedIn: '${EXPAND}', why: '' };`));
    expect(noReason.refusals[0]).to.match(/say why/);
    const notNamed = judgeAfterShipped(migration('20270101_050_sms_phone', drop, `export const contract = { expandedIn: '${EXPAND}', why: 'nothing reads phone' };`));
    expect(notNamed.refusals[0]).to.match(/name must start <date>_<nnn>_contract_/);
    const namedOnly = judgeAfterShipped(migration('20270101_050_contract_sms_phone', '  await knex.raw(`alter table sms add column number text`);'));
    expect(namedOnly.refusals).to.deep.equal(['its name announces a contract step but it exports no contract marker']);
  });

  describe('a check constraint dropped and added again', () => {
    const redo = (values: string, column = 'kind', name = 'sms_kind_known') =>
      [
        `  await knex.raw(\`alter table sms drop constraint ${name}\`);`,
        `  await knex.raw(\`alter table sms add constraint ${name} check (${column} in (${values}))\`);`,
      ].join('\n');

    it('when it comes back accepting every value it accepted and more, then it passes as a wider check', () => {
      const judgement = judgeAfterShipped(migration('20270101_050_sms_kind_fax', redo(`'text', 'data', 'mms', 'canary', 'fax'`)));
      expect(judgement).to.include({ allowedAs: 'wider check' });
      expect(judgement.refusals).to.deep.equal([]);
    });

    it('when it comes back without a value it accepted, over another column, or not at all, then it is refused', () => {
      for (const up of [
        redo(`'text', 'data', 'mms'`),
        redo(`'text', 'data', 'mms', 'canary'`, 'status'),
        '  await knex.raw(`alter table sms drop constraint sms_kind_known`);',
        // Added back before it is dropped: the drop is what stays.
        [redo(`'text', 'data', 'mms', 'canary', 'fax'`).split('\n')[1], redo('').split('\n')[0]].join('\n'),
      ]) {
        const judgement = judgeAfterShipped(migration('20270101_050_sms_kind', up));
        expect(judgement.refusals, up).to.have.length(1);
        expect(judgement.refusals[0]).to.match(/^drop constraint sms_kind_known: /);
      }
    });

    it('when a constraint without an earlier `in (...)` definition is dropped and added again, then it is refused', () => {
      const judgement = judgeAfterShipped(migration('20270101_050_sms_priority', redo('1, 2', 'priority', 'sms_priority_range')));
      expect(judgement.refusals).to.have.length(1);
    });
  });

  it('when a migration allowed before the policy gains another destructive statement, then it is refused; a pinned statement it lost is named', () => {
    const [name, allowance] = Object.entries(PRE_POLICY)[0]!;
    const original = shipped.find((m) => m.name === name)!;
    const grown = { name, source: original.source.replace(/export async function up\(knex: Knex\): Promise<void> \{/, '$&\n  await knex.raw(`drop index sms_pool`);') };
    expect(grown.source).to.not.equal(original.source);
    const refusals = judgeMigrations(shipped.map((m) => (m.name === name ? grown : m))).find((j) => j.name === name)!.refusals;
    expect(refusals).to.deep.equal(['drop index sms_pool: destructive, and not among the statements it ran before the policy']);

    const pinnedMore = { ...PRE_POLICY, [name]: { ...allowance, statements: [...allowance.statements, 'drop index if exists sms_gone'] } };
    expect(judgeMigrations(shipped, pinnedMore).find((j) => j.name === name)!.refusals).to.deep.equal([
      'the pre-policy allowance pins "drop index if exists sms_gone", which it no longer runs: remove it from PRE_POLICY',
    ]);
  });

  it('when a migration builds its statements in a helper, then the helper is read; its down is not', () => {
    const source = migration('20270101_050_helper', '  for (const s of statements()) await knex.raw(s);', 'function statements() { return [`alter table sms drop column phone`]; }');
    expect(upSource(source.source)).to.contain('drop column phone').and.not.contain('drop column whatever');
    expect(judgeAfterShipped(source).refusals).to.have.length(1);
  });
});
