// The MMS fields of a send task (docs/asyncapi.yaml, SendTask with kind "mms"), and their checks.
// Each part is fetched over HTTP from the gateway, at its path, with the device's credentials.

export interface MmsPart {
  /** The media id. */
  id: string;
  content_type: string;
  /** Bytes. */
  size: number;
  /** Path on the gateway's HTTP address: GET it with HTTP Basic device id:token (Range allowed). */
  path: string;
}

export interface MmsTaskFields {
  kind: 'mms';
  subject: string | null;
  /** Every recipient, `phone` first: more than one makes a group MMS. */
  recipients: string[];
  parts: MmsPart[];
}

const MAX_PARTS = 10;
const PHONE = /^\+?[0-9]{1,20}$/;
const MEDIA_PATH = /^\/api\/device\/v1\/media\/[0-9a-f-]{36}$/i;

/** The MMS fields of a task object; {} for a task that is no MMS; a string saying what is wrong. */
export function parseMmsFields(value: Record<string, unknown>): MmsTaskFields | Record<string, never> | string {
  if (value.kind !== 'mms') return {};
  const { subject, recipients, parts } = value;
  if (subject !== null && subject !== undefined && typeof subject !== 'string') return 'subject is not a string';
  if (!Array.isArray(recipients) || recipients.length === 0 || !recipients.every((phone) => typeof phone === 'string' && PHONE.test(phone))) {
    return 'recipients are not phone numbers';
  }
  if (!Array.isArray(parts) || parts.length > MAX_PARTS) return 'parts is not a list of at most 10';
  const checked: MmsPart[] = [];
  for (const part of parts as unknown[]) {
    if (typeof part !== 'object' || part === null) return 'a part is not an object';
    const { id, content_type, size, path } = part as Record<string, unknown>;
    if (typeof id !== 'string' || typeof content_type !== 'string' || typeof size !== 'number' || !Number.isInteger(size) || size < 0) return 'a part lacks id, content_type or size';
    if (typeof path !== 'string' || !MEDIA_PATH.test(path)) return 'a part\'s path is not a media path';
    checked.push({ id, content_type, size, path });
  }
  return { kind: 'mms', subject: typeof subject === 'string' ? subject : null, recipients: recipients as string[], parts: checked };
}
