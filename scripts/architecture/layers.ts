// The gateway's layers, lowest first. A file imports from its own layer or lower ones, never from
// a higher one: common helpers know no database, storage knows no events, a module knows no
// use-case, no way in knows the composition that starts it.
//
// Files outside every layer (src/config.ts, src/tls/, src/simulator/, agent/, broker/, db/) are
// not judged here.

/** A module's description of itself for the composition (feature.ts, or another *-feature.ts of the module). */
export const FEATURE_FILE = /^src\/modules\/[^/]+\/(?:[a-z-]+-)?feature\.ts$/;

export const LAYERS = ['common', 'storage', 'events', 'modules', 'use-cases', 'ways in', 'composition'] as const;
export type Layer = (typeof LAYERS)[number];

const RULES: readonly [RegExp, Layer][] = [
  [/^src\/(services|gateway)\.ts$/, 'composition'],
  // The features' descriptions and the engine that makes the gateway out of them: a module's
  // feature.ts wires its module to the others, to its routes and to the seam.
  [/^src\/composition\//, 'composition'],
  [FEATURE_FILE, 'composition'],
  [/^src\/cli\//, 'composition'],
  // Joins each module's domain events into the gateway's catalog.
  [/^src\/event-catalog\.ts$/, 'composition'],
  // Where requests come in, one folder per protocol under src/api/: the Extended API's routes and
  // the handlers and guards only they use (extended/<module>/), the legacy API, the Twilio API,
  // SMPP, SMTP and MCP. The phones' own HTTP endpoints (MMS media, recording uploads) stay under
  // extended/<module>/: the recording uploads share their file with the recording downloads, and
  // taking them apart would be more than a move. src/http/ is the HTTP server they all sit on.
  [/^src\/(http|api)\//, 'ways in'],
  // Messages from the other gateway processes (over Redis) come in here and are handed to the
  // modules that answer them (presence, hand-offs, the live feed).
  [/^src\/cluster\/(cluster|presence|live-relay|transient-handoff)\.ts$/, 'ways in'],
  [/^src\/use-cases\//, 'use-cases'],
  [/^src\/modules\//, 'modules'],
  // The seams parts speak through: domain events in one process, and the notices and wake-ups
  // the processes send each other (a module says "this changed" without knowing who listens).
  [/^src\/events\//, 'events'],
  [/^src\/cluster\//, 'events'],
  [/^src\/storage\//, 'storage'],
  [/^src\/common\//, 'common'],
];

export function layerOf(path: string): Layer | undefined {
  return RULES.find(([pattern]) => pattern.test(path))?.[1];
}

export interface KnownUpwardImport {
  from: RegExp;
  to: RegExp;
  why: string;
}

/** Imports that still go up a layer, each with what keeps it there; none may be added. */
export const KNOWN_UPWARD_IMPORTS: readonly KnownUpwardImport[] = [
  {
    from: /^src\/modules\/conversations\/presenter\.ts$/,
    to: /^src\/use-cases\/conversation-views\.ts$/,
    why: 'the conversation view types are declared with the use-case that assembles them from several modules; the types can move down to the module',
  },
];
