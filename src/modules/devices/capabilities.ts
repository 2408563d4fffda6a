// What a device says it can do, in its heartbeat: the work it may be given. The gateway hands a
// device nothing it says it cannot do, and refuses at once what no device of the account can, so
// that nothing waits for a phone that never could and then fails on it. A device that never said
// (an app older than capabilities) is taken to do everything, as before they existed.
import { Type, type Static } from '@sinclair/typebox';
import { FINGERPRINT_PATTERN } from '../../common/end-to-end.ts';

export const DeviceCapabilities = Type.Object(
  {
    mms: Type.Boolean({ description: 'sends MMS' }),
    ussd: Type.Boolean({ description: 'dials USSD codes for the gateway' }),
    data_sms: Type.Boolean({ description: 'sends data SMS (binary, to an application port)' }),
    call_recording: Type.Boolean({ description: 'uploads call recordings (the record_calls setting)' }),
    passphrase_fingerprint: Type.Optional(
      Type.String({
        pattern: FINGERPRINT_PATTERN,
        description: 'the fingerprint of the end-to-end passphrase it holds (docs/encryption.md); absent: it holds none, and takes no encrypted SMS',
      }),
    ),
  },
  { additionalProperties: false },
);

export type DeviceCapabilities = Static<typeof DeviceCapabilities>;

/** Work some devices cannot do. */
export type CapabilityNeed =
  | { kind: 'mms' }
  | { kind: 'ussd' }
  | { kind: 'data_sms' }
  | { kind: 'call_recording' }
  /** An encrypted SMS; with a fingerprint, only a phone holding that passphrase opens it. */
  | { kind: 'encrypted'; fingerprint: string | null };

/** Whether a device that reported `capabilities` (null: never did) can do it. */
export function canDo(capabilities: DeviceCapabilities | null, need: CapabilityNeed): boolean {
  if (!capabilities) return true;
  switch (need.kind) {
    case 'encrypted':
      return capabilities.passphrase_fingerprint !== undefined && (need.fingerprint === null || need.fingerprint === capabilities.passphrase_fingerprint);
    default:
      return capabilities[need.kind];
  }
}

/** The need, as people read it in a refusal. */
export function describeNeed(need: CapabilityNeed): string {
  switch (need.kind) {
    case 'mms':
      return 'send MMS';
    case 'ussd':
      return 'dial USSD';
    case 'data_sms':
      return 'send data SMS';
    case 'call_recording':
      return 'record calls';
    case 'encrypted':
      return need.fingerprint === null ? 'open encrypted SMS (it holds no passphrase)' : `open SMS encrypted with the passphrase of fingerprint ${need.fingerprint}`;
  }
}
