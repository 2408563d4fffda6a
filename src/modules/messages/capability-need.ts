// What a device must be able to do to be handed an SMS: plain text asks nothing; an MMS, a data
// SMS or an encrypted SMS (with the passphrase it names, if it names one) asks what some devices
// say they cannot (devices/capabilities.ts).
import type { CapabilityNeed } from '../devices/capabilities.ts';
import type { SmsRecord } from './types.ts';

export function capabilityNeedOf(sms: Pick<SmsRecord, 'kind' | 'is_encrypted' | 'passphrase_fingerprint'>): CapabilityNeed | undefined {
  if (sms.kind === 'mms') return { kind: 'mms' };
  if (sms.kind === 'data') return { kind: 'data_sms' };
  if (sms.is_encrypted) return { kind: 'encrypted', fingerprint: sms.passphrase_fingerprint ?? null };
  return undefined;
}
