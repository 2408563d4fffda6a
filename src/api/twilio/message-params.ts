// Twilio's "create a Message" parameters as the gateway's new SMS. To and Body are required (a
// message with media only is refused: the phones send SMS, not MMS). From may name one of the
// account's phones by device id or name, which then sends it; a phone number (or
// MessagingServiceSid) is ignored and the account's pool sends it. SendAt with ScheduleType=fixed
// schedules it; ValidityPeriod (seconds) makes it expire when no phone took it by then.
import { isUuid } from '../../common/object-id.ts';
import { exceedsCharacters } from '../../common/characters.ts';
import type { NewSms } from '../../modules/messages/service.ts';
import type { DeviceService } from '../../modules/devices/service.ts';
import { MESSAGE_MAX_CHARACTERS } from '../../modules/messages/schema.ts';
import { invalidParameter, TwilioError } from '../../modules/twilio/errors.ts';
import type { TwilioCaller } from '../../modules/twilio/service.ts';

/** Twilio's own bounds for ValidityPeriod, in seconds. */
const VALIDITY_SECONDS = { min: 1, max: 36_000 };

export async function newSmsOf(params: Map<string, string>, caller: TwilioCaller, devices: DeviceService): Promise<NewSms> {
  const to = params.get('To')?.trim();
  if (!to) throw new TwilioError(400, 21604, "A 'To' phone number is required.");
  const body = params.get('Body');
  if (params.has('MediaUrl') || params.has('ContentSid')) throw new TwilioError(400, 21620, 'Media and content templates are not supported: this gateway sends SMS');
  if (!body) throw new TwilioError(400, 21602, 'Message body is required.');
  // Characters as the API counts them, and no further than the limit: a body can be as long as
  // the request may be.
  if (exceedsCharacters(body, MESSAGE_MAX_CHARACTERS)) {
    throw new TwilioError(400, 21617, `The message body exceeds the ${MESSAGE_MAX_CHARACTERS} character limit of this gateway`);
  }
  const sms: NewSms = { phone: to, message: body, phoneField: 'To', wayIn: 'twilio' };
  const deviceId = await deviceNamed(params.get('From')?.trim(), caller, devices);
  if (deviceId) sms.deviceId = deviceId;

  const sendAt = params.get('SendAt');
  if (sendAt !== undefined) {
    if (params.get('ScheduleType') !== 'fixed') throw new TwilioError(400, 35111, 'SendAt requires ScheduleType=fixed');
    const at = new Date(sendAt);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(sendAt) || Number.isNaN(at.getTime())) throw new TwilioError(400, 35114, 'SendAt must be an ISO 8601 time');
    if (at.getTime() <= Date.now()) throw new TwilioError(400, 35114, 'SendAt must be in the future');
    sms.sendAt = at.toISOString();
  }
  const validity = params.get('ValidityPeriod');
  if (validity !== undefined) {
    const seconds = Number(validity);
    if (!/^\d+$/.test(validity) || seconds < VALIDITY_SECONDS.min || seconds > VALIDITY_SECONDS.max) {
      throw invalidParameter(`ValidityPeriod must be a whole number of seconds from ${VALIDITY_SECONDS.min} to ${VALIDITY_SECONDS.max}`);
    }
    // Counted from when it may be sent, as Twilio counts it from when it is queued for sending.
    const start = sms.sendAt ? new Date(sms.sendAt).getTime() : Date.now();
    sms.validUntil = new Date(start + seconds * 1000).toISOString();
  }
  return sms;
}

/** The device From names (by id, or by name, case-insensitively); undefined for a number or nothing. */
async function deviceNamed(from: string | undefined, caller: TwilioCaller, devices: DeviceService): Promise<string | undefined> {
  if (!from || /^\+?[\d\s().-]+$/.test(from) || /^(MG|whatsapp:)/.test(from)) return undefined;
  if (isUuid(from)) return from.toLowerCase();
  const wanted = from.toLowerCase();
  const found = (await devices.list(caller.accountId, 1000)).find((device) => [device.name, device.name_custom].some((name) => name?.toLowerCase() === wanted));
  if (!found) throw new TwilioError(400, 21606, `The 'From' value ${JSON.stringify(from.slice(0, 100))} names no phone of this account (give a device id or name, or leave it out)`);
  return found.id;
}
