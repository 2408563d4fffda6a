// A map of a few string keys, kept in one array of alternating keys and values.
//
// Every connected device holds a few small maps for as long as it stays connected: its three
// retained messages under its topic level (retained-store.ts), its four subscriptions
// (subscription-index.ts). A Map of three or four entries takes about 225 bytes (the Map and its
// hash table, sized for growth); an array of exactly its entries about 100. Past ARRAY_LIMIT
// entries (an operator's many subscriptions, a level holding every device) a Map is used, as
// before: lookups stay constant-time where there are many keys. Iteration follows insertion
// order, as a Map's does.

/** The entries as kept: an array [key, value, key, value, ...] or, past ARRAY_LIMIT entries, a Map. */
export type FewEntries<V> = Array<string | V> | Map<string, V>;

const ARRAY_LIMIT = 8;

function indexOfKey<V>(entries: Array<string | V>, key: string): number {
  for (let i = 0; i < entries.length; i += 2) if (entries[i] === key) return i;
  return -1;
}

export function getEntry<V>(entries: FewEntries<V> | undefined, key: string): V | undefined {
  if (entries === undefined) return undefined;
  if (entries instanceof Map) return entries.get(key);
  const at = indexOfKey(entries, key);
  return at === -1 ? undefined : (entries[at + 1] as V);
}

export function hasEntry<V>(entries: FewEntries<V> | undefined, key: string): boolean {
  if (entries === undefined) return false;
  return entries instanceof Map ? entries.has(key) : indexOfKey(entries, key) !== -1;
}

/** Sets the key's value; returns the entries to keep from now on (a new array or Map when they grew). */
export function setEntry<V>(entries: FewEntries<V> | undefined, key: string, value: V): FewEntries<V> {
  if (entries instanceof Map) return entries.set(key, value);
  const current = entries ?? [];
  const at = indexOfKey(current, key);
  if (at !== -1) {
    current[at + 1] = value;
    return current;
  }
  if (current.length / 2 >= ARRAY_LIMIT) {
    const map = new Map<string, V>(entriesOf(current));
    return map.set(key, value);
  }
  // An array of exactly the entries: one grown by push keeps room for more that never come.
  const grown = new Array<string | V>(current.length + 2);
  for (let i = 0; i < current.length; i++) grown[i] = current[i]!;
  grown[current.length] = key;
  grown[current.length + 1] = value;
  return grown;
}

/** Removes the key; whether it was there. */
export function deleteEntry<V>(entries: FewEntries<V> | undefined, key: string): boolean {
  if (entries === undefined) return false;
  if (entries instanceof Map) return entries.delete(key);
  const at = indexOfKey(entries, key);
  if (at === -1) return false;
  entries.splice(at, 2);
  return true;
}

export function entryCount<V>(entries: FewEntries<V> | undefined): number {
  if (entries === undefined) return 0;
  return entries instanceof Map ? entries.size : entries.length / 2;
}

export function* entriesOf<V>(entries: FewEntries<V> | undefined): Generator<[string, V]> {
  if (entries === undefined) return;
  if (entries instanceof Map) {
    yield* entries;
    return;
  }
  // A copy: the caller may delete entries while it iterates, as a Map allows.
  const items = entries.slice();
  for (let i = 0; i < items.length; i += 2) yield [items[i] as string, items[i + 1] as V];
}
