// Turns the send form into the API's request: one phone number is POST /sms, several are one
// POST /sms/bulk (all created or none). Values are passed on as typed; the API judges them.
import { post } from '../../api.ts';
import type { Sms } from '../../api/types.ts';

export interface SendForm {
  message: string;
  phones: string;
  deviceId: string;
  /** '' lets the device's settings decide. */
  simSlot: string;
  callbackId: string;
  sendAt: string;
  validUntil: string;
  priority: string;
}

export const EMPTY_SEND_FORM: SendForm = { message: '', phones: '', deviceId: '', simSlot: '', callbackId: '', sendAt: '', validUntil: '', priority: '' };

/** The phone numbers typed, separated by commas or new lines. */
export function phoneList(phones: string): string[] {
  return phones
    .split(/[,\n]/)
    .map((phone) => phone.trim())
    .filter((phone) => phone !== '');
}

export async function sendSms(form: SendForm): Promise<Sms[]> {
  const phones = phoneList(form.phones);
  const options = {
    ...(form.deviceId ? { device_id: form.deviceId } : {}),
    // A slot belongs to the chosen device; with "any device" there is none to name.
    ...(form.deviceId && form.simSlot ? { sim_slot: Number(form.simSlot) } : {}),
    ...(form.callbackId.trim() ? { callback_id: form.callbackId.trim() } : {}),
    ...(form.sendAt ? { send_at: isoTime(form.sendAt) } : {}),
    ...(form.validUntil ? { valid_until: isoTime(form.validUntil) } : {}),
    ...(form.priority.trim() ? { priority: wholeNumber(form.priority) } : {}),
  };
  // No number typed still goes to the API, which names the missing phone beside its field.
  if (phones.length <= 1) return [await post<Sms>('/sms', { phone: phones[0] ?? '', message: form.message, ...options })];
  const created = await post<{ data: Sms[] }>('/sms/bulk', { messages: phones.map((phone) => ({ phone, message: form.message, ...options })) });
  return created.data;
}

/** A datetime-local value (the browser's zone) as ISO 8601; left as typed if it is not a time. */
function isoTime(local: string): string {
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? local : date.toISOString();
}

/** A number as a number; anything else is sent as typed so the API explains what it expects. */
function wholeNumber(text: string): number | string {
  return /^\s*-?\d+\s*$/.test(text) ? Number(text) : text;
}
