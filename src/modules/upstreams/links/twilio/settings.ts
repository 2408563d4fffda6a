// What an owner gives to send through a service that speaks Twilio's Messages API (Twilio itself,
// or another gateway's Twilio-compatible API), and the check of it. Pure: the API that stores an
// upstream answers every problem at once, in words, before any link is made with them.

export interface TwilioLinkSettings {
  /** Where the API answers, e.g. https://api.twilio.com; a path prefix is kept (another gateway's API may sit under one). */
  baseUrl: string;
  accountSid: string;
  /** A secret: never logged, never shown back. */
  authToken: string;
  /** The sender: a phone number or an alphanumeric sender ID. Either this or messagingServiceSid. */
  from?: string;
  /** A Twilio Messaging Service, which then picks the sender. Either this or from. */
  messagingServiceSid?: string;
  /** Requests on their way at once, at most. */
  maxConcurrent?: number;
  /** Requests started per second, at most (the provider's own account limit is usually the bound). */
  throughputPerSecond?: number;
}

export const TWILIO_LINK_DEFAULTS = { maxConcurrent: 10, throughputPerSecond: 50 } as const;

const LIMITS = { maxConcurrent: 1_000, throughputPerSecond: 10_000, secret: 256, sid: 64 } as const;

/** A phone number (E.164 with or without +, or a short code) as Twilio takes it in From. */
const SENDER_NUMBER = /^\+?\d{3,15}$/;
/** Twilio's alphanumeric sender IDs: up to 11 letters, digits and spaces, at least one letter. */
const SENDER_NAME = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;
const MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;
/** Twilio's own are AC and 32 hex digits; compatible services have their own forms, which go into a URL path. */
const ACCOUNT_SID = /^[A-Za-z0-9_-]+$/;

/** Every problem of the settings, in words an owner reads; empty when they can be used. */
export function checkTwilioLinkSettings(input: unknown): string[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return ['settings must be an object'];
  const settings = input as Record<string, unknown>;
  const problems: string[] = [];
  problems.push(...baseUrlProblems(settings.baseUrl));

  if (typeof settings.accountSid !== 'string' || settings.accountSid === '') problems.push('accountSid is required');
  else if (settings.accountSid.length > LIMITS.sid || !ACCOUNT_SID.test(settings.accountSid)) {
    problems.push(`accountSid must be letters, digits, - or _, at most ${LIMITS.sid} (Twilio's are AC and 32 hex digits)`);
  }
  if (typeof settings.authToken !== 'string' || settings.authToken === '') problems.push('authToken is required');
  else if (settings.authToken.length > LIMITS.secret) problems.push(`authToken must be at most ${LIMITS.secret} characters`);

  const hasFrom = settings.from !== undefined && settings.from !== null;
  const hasService = settings.messagingServiceSid !== undefined && settings.messagingServiceSid !== null;
  if (hasFrom && hasService) problems.push('give either from or messagingServiceSid, not both');
  if (!hasFrom && !hasService) problems.push('from (a phone number or an alphanumeric sender ID) or messagingServiceSid is required');
  if (hasFrom && (typeof settings.from !== 'string' || !(SENDER_NUMBER.test(settings.from) || SENDER_NAME.test(settings.from)))) {
    problems.push('from must be a phone number (+ and 3 to 15 digits) or an alphanumeric sender ID (up to 11 letters, digits and spaces, with a letter)');
  }
  if (hasService && (typeof settings.messagingServiceSid !== 'string' || !MESSAGING_SERVICE_SID.test(settings.messagingServiceSid))) {
    problems.push('messagingServiceSid must be MG and 32 hex digits');
  }

  if (settings.maxConcurrent !== undefined && !(Number.isInteger(settings.maxConcurrent) && (settings.maxConcurrent as number) >= 1 && (settings.maxConcurrent as number) <= LIMITS.maxConcurrent)) {
    problems.push(`maxConcurrent must be a whole number from 1 to ${LIMITS.maxConcurrent}`);
  }
  const rate = settings.throughputPerSecond;
  if (rate !== undefined && !(typeof rate === 'number' && Number.isFinite(rate) && rate > 0 && rate <= LIMITS.throughputPerSecond)) {
    problems.push(`throughputPerSecond must be a number above 0, at most ${LIMITS.throughputPerSecond}`);
  }
  return problems;
}

function baseUrlProblems(value: unknown): string[] {
  if (typeof value !== 'string' || value === '') return ['baseUrl is required (e.g. https://api.twilio.com)'];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return ['baseUrl is not a valid URL'];
  }
  const problems: string[] = [];
  if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push('baseUrl must be http or https');
  // The credentials go in the Authorization header; a URL is shown back and may end up in a log.
  if (url.username || url.password) problems.push('baseUrl must not carry credentials (give accountSid and authToken)');
  if (url.search || url.hash) problems.push('baseUrl must not have a query or a fragment');
  return problems;
}

/** The URL messages are created at: {baseUrl}/2010-04-01/Accounts/{sid}/Messages.json. */
export function messagesUrl(settings: Pick<TwilioLinkSettings, 'baseUrl' | 'accountSid'>): string {
  return `${settings.baseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`;
}
