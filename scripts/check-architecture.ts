// `npm run check:architecture`: the rules that keep the gateway's layers apart, read from the
// sources' own import lines. It prints every breach and exits 1 if there is one.
//
// The rules:
// - A module's repository is private to it: no file outside src/modules/<name>/ imports it.
// - No two modules import each other (work that spans modules lives in src/use-cases/).
// - The broker speaks MQTT only: nothing in broker/ imports a repository, the database, knex or
//   the HTTP layer, or writes SQL.
// - `Services` (the whole bag of services) is known to composition only: src/services.ts,
//   src/gateway.ts, src/cli/, src/composition/ and the modules' feature files.
// - Listeners on the event seam (and on other nodes' news) are registered in feature files only.
// - No callback field is assigned from outside after construction (`x.onSomething = ...`,
//   `x.onSomething.push(...)`, `x.callbacks = ...`): hand-overs go through the event seam or a
//   constructor.
// - A module's SQL touches its own tables (scripts/architecture/table-owners.ts says whose each
//   table is, and which other files may name one and why).
// - Layers: common < storage < events < modules < use-cases < ways in < composition; no file
//   imports from a layer above its own (scripts/architecture/layers.ts).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FEATURE_FILE, KNOWN_UPWARD_IMPORTS, LAYERS, layerOf, type KnownUpwardImport } from './architecture/layers.ts';
import { stripComments, tablesMade, tablesNamed } from './architecture/sql-tables.ts';
import { SHARED_TABLES, TABLE_OWNERS, type SharedTable } from './architecture/table-owners.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * Where listeners may be registered on the event seam or on the news from other nodes: feature
 * files (a module's handlers are written as listener maps its feature registers), the seam
 * itself, and the broker's ports (the MQTT way in hears presence to restate it to phones and
 * operators as retained messages, for as long as the broker asks).
 */
const LISTENS_ON_THE_SEAM = [FEATURE_FILE, /^src\/composition\//, /^src\/events\//, /^src\/api\/mqtt\/broker-ports\.ts$/];

const COMPOSITION = [/^src\/services\.ts$/, /^src\/gateway\.ts$/, /^src\/cli\//, /^src\/composition\//, FEATURE_FILE];

export interface SourceFile {
  path: string;
  text: string;
  /** Every file it imports, at the top or with `import()`. */
  imports: string[];
  /** Those it imports at the top, loaded with it; all of `imports` when not said. */
  eagerImports?: string[];
}

function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) out.push(...listTs(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Every relative import or re-export of a file, resolved to a path from the repository root. */
function importsOf(path: string, text: string): Pick<SourceFile, 'imports' | 'eagerImports'> {
  const inRoot = (specifier: string) => relative(root, resolve(root, dirname(path), specifier));
  const eager = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]/g)].map((m) => inRoot(m[1]!));
  const lazy = [...text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map((m) => inRoot(m[1]!));
  return { imports: [...eager, ...lazy], eagerImports: eager };
}

/** The migrations' text, to learn the tables they make. */
export function readMigrations(dir = 'db/migrations'): SourceFile[] {
  return listTs(dir).map((path) => ({ path, text: readFileSync(join(root, path), 'utf8'), imports: [] }));
}

export function readSources(dirs = ['src', 'broker']): SourceFile[] {
  return dirs.flatMap(listTs).map((path) => {
    const text = readFileSync(join(root, path), 'utf8');
    return { path, text, ...importsOf(path, text) };
  });
}

// A feature file belongs to the composition, not to its module: it wires the module to others.
const moduleOf = (path: string): string | undefined => (FEATURE_FILE.test(path) ? undefined : /^src\/modules\/([^/]+)\//.exec(path)?.[1]);

export interface Ownership {
  owners: Readonly<Record<string, string>>;
  shared: readonly SharedTable[];
  upward: readonly KnownUpwardImport[];
}

const OWNERSHIP: Ownership = { owners: TABLE_OWNERS, shared: SHARED_TABLES, upward: KNOWN_UPWARD_IMPORTS };

/** `by` is a folder (ending in /) or one file. */
const covers = (by: string, path: string) => (by.endsWith('/') ? path.startsWith(by) : path === by);

export interface CheckOptions {
  /** The migrations, whose every table must have an owner. */
  migrations?: SourceFile[];
  ownership?: Ownership;
  /** The whole tree was read: an exception that nothing needs any more is a breach too. */
  whole?: boolean;
}

export function checkArchitecture(files: SourceFile[], { migrations = [], ownership = OWNERSHIP, whole = false }: CheckOptions = {}): string[] {
  const breaches: string[] = [
    ...checkTables(files, migrations, ownership, whole),
    ...checkLayers(files, ownership.upward, whole),
  ];
  const moduleEdges = new Map<string, Map<string, string>>();

  for (const file of files) {
    const own = moduleOf(file.path);
    for (const target of file.imports) {
      const other = moduleOf(target);
      if (/\/repository\.ts$/.test(target) && other && other !== own) {
        breaches.push(`${file.path}: imports ${target}, another module's repository`);
      }
      if (own && other && own !== other) {
        const edges = moduleEdges.get(own) ?? new Map<string, string>();
        if (!edges.has(other)) edges.set(other, file.path);
        moduleEdges.set(own, edges);
      }
      if (file.path.startsWith('broker/')) {
        if (/\/repository\.ts$/.test(target) || /^src\/storage\/database\.ts$/.test(target) || target.startsWith('src/http/')) {
          breaches.push(`${file.path}: the broker imports ${target}`);
        }
      }
      if (/^src\/(services\.ts|composition\/)/.test(target) && !COMPOSITION.some((pattern) => pattern.test(file.path))) {
        breaches.push(`${file.path}: imports Services outside composition`);
      }
    }
    // A one-shot command imports the account features: a route file imported at the top of a
    // feature would load every schema of its routes into each command.
    if (FEATURE_FILE.test(file.path)) {
      for (const target of file.eagerImports ?? file.imports) {
        if (target.startsWith('src/api/extended/')) breaches.push(`${file.path}: imports ${target} at the top; a feature imports its routes inside waysIn`);
      }
    }
    if (file.path.startsWith('broker/')) {
      if (/from\s+['"]knex['"]/.test(file.text)) breaches.push(`${file.path}: the broker imports knex`);
      // Query-builder calls and SQL text; Buffer.from('...') is bytes, not a table.
      if (/(?<!\bBuffer)\.(?:from|select|where|insert|update|raw)\(\s*['"`]/.test(file.text) || /\b(?:select|update|insert into|delete from)\s+[a-z_*]/i.test(stripComments(file.text).replace(/'[^'\n]*'/g, "''"))) {
        breaches.push(`${file.path}: the broker runs SQL`);
      }
    }
    if (!LISTENS_ON_THE_SEAM.some((pattern) => pattern.test(file.path))) {
      for (const match of stripComments(file.text).matchAll(/\b(?:events|invalidation)\??\.(on|listen|listenAll|onReset)\(/g)) {
        breaches.push(`${file.path}: registers a listener with ${match[0].slice(0, -1)}, which only feature files do`);
      }
    }
    for (const match of stripComments(file.text).matchAll(/(?<![\w.])(?!this\b)(\w+(?:\.\w+)*)\.(on[A-Z]\w*|callbacks)\s*(?:=(?!=)|\.push\()/g)) {
      breaches.push(`${file.path}: assigns the callback field ${match[1]}.${match[2]} after construction`);
    }
  }

  for (const [from, edges] of moduleEdges) {
    for (const [to, via] of edges) {
      const back = moduleEdges.get(to)?.get(from);
      if (back && from < to) breaches.push(`modules ${from} and ${to} import each other (${via}; ${back})`);
    }
  }
  return breaches;
}

/** Every table's SQL stays in its owner's files, unless a listed exception says why not. */
function checkTables(files: SourceFile[], migrations: SourceFile[], { owners, shared }: Ownership, whole: boolean): string[] {
  const breaches: string[] = [];
  for (const migration of migrations) {
    for (const table of tablesMade(migration.text)) {
      if (!(table in owners)) breaches.push(`${migration.path}: makes the table ${table}, which has no owner in scripts/architecture/table-owners.ts`);
    }
  }
  const tables = Object.keys(owners);
  const used = new Set<SharedTable>();
  for (const file of files) {
    if (!file.path.startsWith('src/')) continue;
    for (const table of tablesNamed(file.text, tables)) {
      if (covers(owners[table]!, file.path)) continue;
      const exception = shared.find((entry) => entry.table === table && covers(entry.by, file.path));
      if (exception) used.add(exception);
      else breaches.push(`${file.path}: SQL over ${table}, a table of ${owners[table]}`);
    }
  }
  // An exception nothing needs any more is taken off the list, so the list only shrinks.
  if (whole) {
    for (const entry of shared) if (!used.has(entry)) breaches.push(`table-owners: ${entry.by} no longer names ${entry.table}; take the exception off the list`);
  }
  return breaches;
}

/** No import goes from a layer to a higher one, but for the known ones listed. */
function checkLayers(files: SourceFile[], upward: readonly KnownUpwardImport[], whole: boolean): string[] {
  const breaches: string[] = [];
  const used = new Set<KnownUpwardImport>();
  for (const file of files) {
    const from = layerOf(file.path);
    if (!from) continue;
    for (const target of file.imports) {
      const to = layerOf(target);
      if (!to || LAYERS.indexOf(to) <= LAYERS.indexOf(from)) continue;
      // Services outside composition has a rule of its own, said above.
      if (/^src\/services\.ts$/.test(target)) continue;
      const known = upward.find((entry) => entry.from.test(file.path) && entry.to.test(target));
      if (known) used.add(known);
      else breaches.push(`${file.path}: imports ${target}, from ${from} up to ${to}`);
    }
  }
  if (whole) {
    for (const entry of upward) if (!used.has(entry)) breaches.push(`layers: no import from ${entry.from} to ${entry.to} is left; take the exception off the list`);
  }
  return breaches;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const breaches = checkArchitecture(readSources(), { migrations: readMigrations(), whole: true });
  for (const breach of breaches) console.log(breach);
  console.log(breaches.length === 0 ? 'architecture: every rule holds' : `architecture: ${breaches.length} breaches`);
  process.exitCode = breaches.length === 0 ? 0 : 1;
}
