// Messages between nodes travel as JSON over Redis pub/sub, where anyone who can reach the Redis
// can publish. Each kind of message checks its own fields; this is the part they share.

/** The message as an object, or undefined when it is too long, not JSON, or not an object. */
export function readJsonObject(raw: string, maxLength: number): Record<string, unknown> | undefined {
  if (raw.length > maxLength) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
