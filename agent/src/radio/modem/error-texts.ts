// Readable meanings of the error numbers modems give with +CMS ERROR (SMS commands) and +CME ERROR
// (everything else), for the codes seen in practice, and what a failed send reports to the gateway
// for each +CMS ERROR (docs/delivery.md, "Modem and Termux errors"). The network's causes (below
// 128, 3GPP TS 24.011) and the service centre's (128-255, TS 23.040 TP-FCS) reach the modem from
// the network; 300-511 are the modem's own (TS 27.005); 512 and up are its manufacturer's.
import type { SendErrorCode } from '../send-error-codes.ts';

const CMS_ERRORS: ReadonlyMap<number, { text: string; errorCode: SendErrorCode }> = new Map([
  [1, { text: 'unassigned number', errorCode: 'invalid_number' }],
  [8, { text: 'operator determined barring', errorCode: 'blocked' }],
  [10, { text: 'call barred', errorCode: 'blocked' }],
  [21, { text: 'short message transfer rejected', errorCode: 'rejected' }],
  [27, { text: 'destination out of service', errorCode: 'invalid_number' }],
  [28, { text: 'unidentified subscriber', errorCode: 'invalid_number' }],
  [29, { text: 'facility rejected', errorCode: 'blocked' }],
  [30, { text: 'unknown subscriber', errorCode: 'invalid_number' }],
  [38, { text: 'network out of order', errorCode: 'network_failure' }],
  [41, { text: 'temporary failure', errorCode: 'network_failure' }],
  [42, { text: 'congestion', errorCode: 'network_busy' }],
  [47, { text: 'resources unavailable', errorCode: 'network_busy' }],
  [50, { text: 'requested facility not subscribed', errorCode: 'not_subscribed' }],
  [69, { text: 'requested facility not implemented', errorCode: 'not_subscribed' }],
  [81, { text: 'invalid short message transfer reference value', errorCode: 'network_failure' }],
  [95, { text: 'invalid message', errorCode: 'invalid_message' }],
  [96, { text: 'invalid mandatory information', errorCode: 'invalid_message' }],
  [97, { text: 'message type non-existent or not implemented', errorCode: 'invalid_message' }],
  [98, { text: 'message not compatible with short message protocol state', errorCode: 'invalid_message' }],
  [99, { text: 'information element non-existent or not implemented', errorCode: 'invalid_message' }],
  [111, { text: 'protocol error', errorCode: 'network_failure' }],
  [127, { text: 'interworking unspecified', errorCode: 'network_failure' }],
  [192, { text: 'service centre busy', errorCode: 'network_busy' }],
  [193, { text: 'no service centre subscription', errorCode: 'not_subscribed' }],
  [194, { text: 'service centre system failure', errorCode: 'network_failure' }],
  [195, { text: 'invalid destination address', errorCode: 'invalid_number' }],
  [196, { text: 'destination barred', errorCode: 'blocked' }],
  [197, { text: 'rejected as a duplicate', errorCode: 'rejected' }],
  [255, { text: 'unspecified service centre error', errorCode: 'generic_failure' }],
  [300, { text: 'modem failure', errorCode: 'radio_unavailable' }],
  [301, { text: 'SMS service of the modem reserved', errorCode: 'radio_unavailable' }],
  [302, { text: 'operation not allowed', errorCode: 'radio_unavailable' }],
  [303, { text: 'operation not supported', errorCode: 'invalid_message' }],
  [304, { text: 'invalid PDU mode parameter', errorCode: 'invalid_message' }],
  [305, { text: 'invalid text mode parameter', errorCode: 'invalid_message' }],
  [310, { text: 'SIM not inserted', errorCode: 'sim_unavailable' }],
  [311, { text: 'SIM PIN required', errorCode: 'sim_unavailable' }],
  [312, { text: 'PH-SIM PIN required', errorCode: 'sim_unavailable' }],
  [313, { text: 'SIM failure', errorCode: 'sim_unavailable' }],
  [314, { text: 'SIM busy', errorCode: 'sim_unavailable' }],
  [315, { text: 'SIM wrong', errorCode: 'sim_unavailable' }],
  [316, { text: 'SIM PUK required', errorCode: 'sim_unavailable' }],
  [317, { text: 'SIM PIN2 required', errorCode: 'sim_unavailable' }],
  [318, { text: 'SIM PUK2 required', errorCode: 'sim_unavailable' }],
  [320, { text: 'memory failure', errorCode: 'radio_unavailable' }],
  [321, { text: 'invalid memory index', errorCode: 'radio_unavailable' }],
  [322, { text: 'memory full', errorCode: 'radio_unavailable' }],
  [330, { text: 'SMSC address unknown', errorCode: 'smsc_unknown' }],
  [331, { text: 'no network service', errorCode: 'no_service' }],
  [332, { text: 'network timeout', errorCode: 'network_timeout' }],
  [340, { text: 'no +CNMA acknowledgement expected', errorCode: 'radio_unavailable' }],
  [500, { text: 'unknown error', errorCode: 'generic_failure' }],
]);

const CME_ERRORS: ReadonlyMap<number, string> = new Map([
  [0, 'phone failure'],
  [3, 'operation not allowed'],
  [4, 'operation not supported'],
  [10, 'SIM not inserted'],
  [11, 'SIM PIN required'],
  [12, 'SIM PUK required'],
  [13, 'SIM failure'],
  [14, 'SIM busy'],
  [15, 'SIM wrong'],
  [16, 'incorrect password'],
  [17, 'SIM PIN2 required'],
  [18, 'SIM PUK2 required'],
  [20, 'memory full'],
  [21, 'invalid index'],
  [22, 'not found'],
  [30, 'no network service'],
  [31, 'network timeout'],
  [100, 'unknown'],
]);

// The service centre's errors about the message itself: its protocol identifier (128-143), its data
// coding (144-159) or a command (160-175).
const MESSAGE_ERRORS = { first: 128, last: 175 };
const MANUFACTURER_ERRORS_FROM = 512;

export function cmsErrorText(code: number): string {
  const known = CMS_ERRORS.get(code);
  if (known) return known.text;
  if (code >= MESSAGE_ERRORS.first && code <= MESSAGE_ERRORS.last) return 'the service centre refused the message\'s format';
  if (code >= MANUFACTURER_ERRORS_FROM) return 'manufacturer-specific error';
  return 'unknown error';
}

/**
 * The gateway's error code for a send refused with +CMS ERROR `code`. A number this list does not
 * name is unknown_error, which the gateway does not retry: its meaning, and so whether the SMS
 * went out, is unknown.
 */
export function cmsErrorCode(code: number): SendErrorCode {
  const known = CMS_ERRORS.get(code);
  if (known) return known.errorCode;
  if (code >= MESSAGE_ERRORS.first && code <= MESSAGE_ERRORS.last) return 'invalid_message';
  if (code >= MANUFACTURER_ERRORS_FROM) return 'manufacturer_error';
  return 'unknown_error';
}

export function cmeErrorText(code: number): string {
  return CME_ERRORS.get(code) ?? 'unknown error';
}
