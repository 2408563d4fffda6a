// `npx tsx scripts/migration-policy.ts`: the upgrade policy's check of the migrations (run in the
// test suite by test/deploy/migration-policy.test.ts). Nodes of two releases run side by side on
// one database during a rolling upgrade, so a migration may only add to the schema (expand); a
// step that takes away what older code reads or writes (contract) comes in a later release and
// says so. The check reads each migration's `up` (its module without `down`, comments left out)
// and refuses a destructive statement:
//   drop table / column / constraint / index / view / function / trigger / sequence / type,
//   rename column / table (`rename ... to`), alter column ... set not null, alter column ... type,
//   and knex's builder equivalents (dropTable, dropColumn, renameColumn, .alter(), dropIndex ...);
//   and `add column ... not null` without a default, which the previous release's inserts break on;
// unless
// - the migration is a contract step: it exports
//     export const contract = { expandedIn: '<an earlier migration>', why: '<what no node needs any more>' };
//   and its name says so (`<date>_<nnn>_contract_...`), so that a node of an older release that
//   finds it in the database knows it must not start (src/storage/newer-database.ts); or
// - the statement drops a check constraint `c in (...)` that the same migration adds again,
//   under the same name on the same table, over the same column, accepting every value it
//   accepted before (a wider check: what older code writes still passes); or
// - the migration ran before the policy (PRE_POLICY below: each destructive statement pinned).
// It prints every refusal and exits 1 if there is one.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONTRACT_STEP } from '../src/storage/newer-database.ts';

export interface MigrationText {
  /** As listed in db/migrations/index.ts, e.g. 20261204_042_fleet_health. */
  name: string;
  /** The module's whole source. */
  source: string;
}

export interface Destructive {
  kind: string;
  /** The statement's words up to the object it takes away, in lower case, e.g. "drop index if exists sms_pool". */
  text: string;
}

export interface ContractMarker {
  expandedIn: string;
  why: string;
}

export interface Judgement {
  name: string;
  destructive: Destructive[];
  /** Why each destructive statement is allowed, or the refusals. */
  allowedAs: 'expand' | 'contract step' | 'wider check' | 'before the policy';
  refusals: string[];
}

/** A migration's name that announces a contract step; older nodes read it from knex_migrations. */
export const CONTRACT_NAME = CONTRACT_STEP;

/**
 * Migrations that ran before this policy and take something away in `up`. Each statement is
 * pinned: one more destructive statement in one of them is refused like any other. None of them
 * can be made a contract step after the fact: its name, already in every database, does not say
 * so, and no earlier release read and wrote both shapes.
 */
export const PRE_POLICY: Record<string, { statements: string[]; why: string }> = {
  '20261122_005_delivery': {
    statements: ['drop index if exists sms_unassigned', 'drop index if exists sms_device_in_flight'],
    why:
      'Delivery moved from assignment at creation to claims by the phones in this release; the two ' +
      'indexes served the assignment the same release removed. Older code only reads slower without them.',
  },
  '20261125_014_webhook_chain_heads': {
    statements: ['drop index if exists webhook_deliveries_due'],
    why:
      "The webhook claim's index, replaced in the same migration by webhook_deliveries_ready; an " +
      'older node claims without it, slower on a long backlog, never wrongly.',
  },
};

// ---------------------------------------------------------------------------------------------
// Reading the source

/**
 * The source with comments blanked (same length), and a copy with string contents blanked too,
 * where braces can be matched. Template literals' `${...}` stay code in both.
 */
function mask(source: string): { noComments: string; structure: string } {
  const noComments = source.split('');
  const structure = source.split('');
  // Each entry: what we are inside; a template's expression keeps its brace depth.
  const stack: { in: 'code' | 'template'; depth: number }[] = [{ in: 'code', depth: 0 }];
  let i = 0;
  const blank = (target: string[], from: number, to: number) => {
    for (let k = from; k < to; k++) if (target[k] !== '\n') target[k] = ' ';
  };
  while (i < source.length) {
    const top = stack[stack.length - 1]!;
    const c = source[i];
    if (top.in === 'template') {
      if (c === '\\') {
        blank(structure, i, i + 2);
        i += 2;
      } else if (c === '`') {
        stack.pop();
        i++;
      } else if (c === '$' && source[i + 1] === '{') {
        stack.push({ in: 'code', depth: 0 });
        i += 2;
      } else {
        blank(structure, i, i + 1);
        i++;
      }
      continue;
    }
    if (c === '/' && source[i + 1] === '/') {
      const end = source.indexOf('\n', i) < 0 ? source.length : source.indexOf('\n', i);
      blank(noComments, i, end);
      blank(structure, i, end);
      i = end;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2) < 0 ? source.length : source.indexOf('*/', i + 2) + 2;
      blank(noComments, i, end);
      blank(structure, i, end);
      i = end;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < source.length && source[j] !== c && source[j] !== '\n') j += source[j] === '\\' ? 2 : 1;
      blank(structure, i + 1, j);
      i = j + 1;
    } else if (c === '`') {
      stack.push({ in: 'template', depth: 0 });
      i++;
    } else if (c === '{') {
      top.depth++;
      i++;
    } else if (c === '}') {
      if (top.depth === 0 && stack.length > 1) stack.pop();
      else top.depth--;
      i++;
    } else {
      i++;
    }
  }
  return { noComments: noComments.join(''), structure: structure.join('') };
}

/**
 * What `up` may run: the module without its `down` function and without comments. Helpers and
 * constants stay in (`up` may build its statements from them); a module whose `down` cannot be
 * found is read whole.
 */
export function upSource(source: string): string {
  const { noComments, structure } = mask(source);
  const down = /export\s+(?:async\s+)?function\s+down\s*\(/.exec(structure);
  if (!down) return noComments;
  const open = structure.indexOf('{', structure.indexOf(')', down.index));
  let depth = 0;
  for (let k = open; k >= 0 && k < structure.length; k++) {
    if (structure[k] === '{') depth++;
    else if (structure[k] === '}' && --depth === 0) return noComments.slice(0, down.index) + noComments.slice(k + 1);
  }
  return noComments;
}

const IDENT = `(?:"[^"]+"|[a-z_][a-z0-9_$.]*)`;
/** Words after `drop` that take away something else than a column (or nothing: drop default). */
const DROP_OBJECTS = new Set(['table', 'column', 'constraint', 'index', 'view', 'materialized', 'function', 'trigger', 'sequence', 'type']);
const DROP_NOT_A_COLUMN = new Set(['not', 'default', 'identity', 'expression', 'extension', 'schema', 'policy', 'owned', 'role', 'rule', 'database', 'cascade', 'restrict']);
const ALTER_NOT_A_COLUMN = new Set(['table', 'column', 'index', 'type', 'sequence', 'view', 'function', 'domain', 'constraint', 'materialized', 'trigger', 'database', 'schema', 'extension', 'role', 'policy', 'default', 'system']);
const RENAME_NOT_A_COLUMN = new Set(['column', 'to', 'constraint']);

const KNEX_CALLS: [RegExp, string][] = [
  [/\.(droptable|droptableifexists)\s*\(/g, 'drop table'],
  [/\.(dropcolumn|dropcolumns|droptimestamps)\s*\(/g, 'drop column'],
  [/\.renamecolumn\s*\(/g, 'rename column'],
  [/\.renametable\s*\(/g, 'rename table'],
  [/\.alter\s*\(/g, 'alter column'],
  [/\.dropnullable\s*\(/g, 'set not null'],
  [/\.(dropforeign|dropunique|dropprimary|dropchecks)\s*\(/g, 'drop constraint'],
  [/\.dropindex\s*\(/g, 'drop index'],
];

/** The destructive statements in a migration's `up` (as upSource gives it). */
export function destructiveStatements(up: string): Destructive[] {
  const text = up.toLowerCase().replace(/\s+/g, ' ');
  const found: Destructive[] = [];
  const words = (match: string) => match.trim().replace(/\s+/g, ' ');

  for (const m of text.matchAll(new RegExp(`\\bdrop (materialized view|${[...DROP_OBJECTS].join('|')}|if exists|(${IDENT}))(?: if exists)?(?: concurrently)?(?: if exists)? ?(${IDENT})?`, 'g'))) {
    const what = m[1]!;
    if (DROP_NOT_A_COLUMN.has(what)) continue;
    // `drop x` inside an alter table, the word column left out, is a column too.
    const kind = what === 'if exists' || m[2] ? 'drop column' : what === 'materialized view' ? 'drop view' : `drop ${what}`;
    found.push({ kind, text: words(m[0]) });
  }
  for (const m of text.matchAll(new RegExp(`\\brename (column |constraint )?(${IDENT}) to\\b`, 'g'))) {
    if (!m[1] && RENAME_NOT_A_COLUMN.has(m[2]!)) continue;
    found.push({ kind: m[1] === 'constraint ' ? 'rename constraint' : 'rename column', text: words(m[0]) });
  }
  for (const m of text.matchAll(/\brename to\b ?("[^"]+"|[a-z_][a-z0-9_$.]*)?/g)) found.push({ kind: 'rename to', text: words(m[0]) });
  for (const m of text.matchAll(new RegExp(`\\balter (column )?(${IDENT}) (set not null|(?:set data )?type\\b)`, 'g'))) {
    if (!m[1] && ALTER_NOT_A_COLUMN.has(m[2]!)) continue;
    found.push({ kind: m[3] === 'set not null' ? 'set not null' : 'alter column type', text: words(m[0]) });
  }
  for (const [pattern, kind] of KNEX_CALLS) for (const m of text.matchAll(pattern)) found.push({ kind, text: words(m[0]) });
  // A column the previous release's inserts do not write must take a value without them. The
  // column's definition is read up to its statement's next clause or string (a default's quoted
  // value comes after the word default, which is what matters).
  for (const m of text.matchAll(new RegExp(`\\badd column (?:if not exists )?(${IDENT})([^,;'\`]*)`, 'g'))) {
    if (/\bnot null\b/.test(m[2]!) && !/\b(default|generated)\b/.test(m[2]!)) found.push({ kind: 'not null without default', text: words(`add column ${m[1]} not null`) });
  }
  return found;
}

/** The module's `export const contract = {...}`, read from its source; a string says what is wrong with it. */
export function contractMarker(source: string): ContractMarker | string | undefined {
  const code = mask(source).noComments;
  const declared = /export\s+const\s+contract\b[^=]*=\s*\{([^}]*)\}/.exec(code);
  if (!declared?.[1]) return /export\s+const\s+contract\b/.test(code) ? 'its contract export is not of the shape { expandedIn, why }' : undefined;
  const field = (key: string) => new RegExp(`\\b${key}\\s*:\\s*(['"\`])((?:(?!\\1)[^\\\\]|\\\\.)*)\\1`).exec(declared[1]!)?.[2];
  const expandedIn = field('expandedIn');
  const why = field('why');
  if (!expandedIn || !why?.trim()) return 'its contract export must name expandedIn (a migration) and say why, both as plain strings';
  return { expandedIn, why };
}

// ---------------------------------------------------------------------------------------------
// Judging

interface CheckDefinition {
  table: string;
  column: string;
  values: Set<string>;
  at: number;
}

/** `[alter table T] add constraint C check (col in ('a', 'b'))` (or inside create table T). */
function checkDefinitions(up: string, constraint: string): CheckDefinition[] {
  const text = up.toLowerCase().replace(/\s+/g, ' ');
  const found: CheckDefinition[] = [];
  const name = constraint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`\\bconstraint ${name} check ?\\( ?(${IDENT}) in ?\\(([^)]*)\\) ?\\)`, 'g');
  for (const m of text.matchAll(pattern)) {
    const before = text.slice(0, m.index);
    const table = [...before.matchAll(new RegExp(`\\b(?:alter|create) table (?:if (?:not )?exists )?(?:only )?(${IDENT})`, 'g'))].pop()?.[1];
    if (!table) continue;
    const values = new Set(m[2]!.split(',').map((v) => v.trim()).filter(Boolean));
    found.push({ table, column: m[1]!, values, at: m.index });
  }
  return found;
}

/**
 * A dropped check that comes back wider: the same migration adds it again after the drop, on the
 * same table, over the same column, with every value its latest earlier definition accepted.
 */
function isWiderCheck(statement: Destructive, up: string, earlierUps: string[]): boolean {
  const m = new RegExp(`^drop constraint (?:if exists )?(${IDENT})$`).exec(statement.text);
  if (!m) return false;
  const constraint = m[1]!;
  const text = up.toLowerCase().replace(/\s+/g, ' ');
  const drop = new RegExp(`\\balter table (?:if exists )?(?:only )?(${IDENT}) drop constraint (?:if exists )?${constraint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).exec(text);
  if (!drop) return false;
  const readded = checkDefinitions(up, constraint).find((d) => d.at > drop.index && d.table === drop[1]);
  if (!readded) return false;
  const previous = earlierUps.flatMap((source) => checkDefinitions(source, constraint)).pop();
  if (!previous || previous.table !== readded.table || previous.column !== readded.column) return false;
  return [...previous.values].every((value) => readded.values.has(value));
}

/**
 * Judges each migration in `list` (in their order) against the policy. `prePolicy`: the frozen
 * allowances (PRE_POLICY unless a test gives its own).
 */
export function judgeMigrations(list: MigrationText[], prePolicy = PRE_POLICY): Judgement[] {
  const ups = list.map((m) => upSource(m.source));
  return list.map((migration, index): Judgement => {
    const up = ups[index]!;
    const destructive = destructiveStatements(up);
    const marker = contractMarker(migration.source);
    const refusals: string[] = [];
    const earlierNames = list.slice(0, index).map((m) => m.name);

    if (typeof marker === 'string') refusals.push(marker);
    if (marker && typeof marker !== 'string') {
      if (!earlierNames.includes(marker.expandedIn)) {
        refusals.push(
          list.some((m) => m.name === marker.expandedIn)
            ? `its contract step names ${marker.expandedIn}, which does not come before it`
            : `its contract step names ${marker.expandedIn}, which is no migration`,
        );
      }
      if (!CONTRACT_NAME.test(migration.name)) {
        refusals.push(`a contract step's name must start <date>_<nnn>_contract_ (older nodes read it from the database to know they must not start)`);
      }
      return { name: migration.name, destructive, allowedAs: 'contract step', refusals };
    }
    if (CONTRACT_NAME.test(migration.name)) refusals.push(`its name announces a contract step but it exports no contract marker`);

    const frozen = prePolicy[migration.name];
    if (frozen) {
      const texts = destructive.map((d) => d.text);
      for (const d of destructive) if (!frozen.statements.includes(d.text)) refusals.push(`${d.text}: destructive, and not among the statements it ran before the policy`);
      for (const pinned of frozen.statements) if (!texts.includes(pinned)) refusals.push(`the pre-policy allowance pins "${pinned}", which it no longer runs: remove it from PRE_POLICY`);
      return { name: migration.name, destructive, allowedAs: 'before the policy', refusals };
    }

    let wider = false;
    for (const d of destructive) {
      if (d.kind === 'drop constraint' && isWiderCheck(d, up, ups.slice(0, index))) {
        wider = true;
        continue;
      }
      refusals.push(
        `${d.text}: ${d.kind} takes away what nodes of the previous release may still use; do it in a later release as a contract step ` +
          `(name it <date>_<nnn>_contract_..., export const contract = { expandedIn: '<the expand migration>', why: '...' })`,
      );
    }
    return { name: migration.name, destructive, allowedAs: wider && refusals.length === 0 ? 'wider check' : 'expand', refusals };
  });
}

/** Every migration of db/migrations/index.ts, with its source. */
export async function listedMigrations(): Promise<MigrationText[]> {
  const { migrations } = await import('../db/migrations/index.ts');
  return migrations.map(([name]) => ({ name, source: readFileSync(new URL(`../db/migrations/${name}.ts`, import.meta.url), 'utf8') }));
}

async function main(): Promise<void> {
  const judgements = judgeMigrations(await listedMigrations());
  let refused = 0;
  for (const j of judgements) {
    if (j.destructive.length > 0 || j.refusals.length > 0) {
      console.log(`${j.refusals.length > 0 ? 'REFUSED' : 'allowed'} ${j.name} (${j.allowedAs}): ${j.destructive.map((d) => d.text).join('; ') || 'nothing destructive'}`);
    }
    for (const r of j.refusals) console.log(`  - ${r}`);
    if (j.refusals.length > 0) refused++;
  }
  console.log(`${judgements.length} migrations read, ${refused} refused`);
  process.exitCode = refused > 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
