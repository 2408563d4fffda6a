// A received MMS's text, as the services of received SMS read one. Opt-out keywords, inbound
// rules and the inbox hear every message a phone receives, whichever way it came: a STOP sent as
// an MMS (a text-only one, or with a picture) is a STOP. Rather than a second copy of their rules,
// they hear the MMS as the received SMS it reads as: the same sender, phone and SIM, its text
// (empty when it has none), under the MMS's own id.
import type { DomainEventListener } from '../../events/domain-events.ts';
import type { IncomingSmsRow } from '../incoming/types.ts';
import type { IncomingMmsRow } from './types.ts';

export function receivedText(mms: IncomingMmsRow): IncomingSmsRow {
  return {
    id: mms.id,
    account_id: mms.account_id,
    device_id: mms.device_id,
    device_message_id: mms.device_mms_id,
    phone: mms.phone,
    message: mms.message ?? '',
    sim_slot: mms.sim_slot,
    received_at: mms.received_at,
    created_at: mms.created_at,
    // A phone reports an MMS in clear: end-to-end encryption covers SMS only.
    is_encrypted: false,
  };
}

/** A listener of received SMS that hears received MMS too, through their text. */
export function hearingMmsText(listener: DomainEventListener<IncomingSmsRow>): DomainEventListener<IncomingMmsRow> {
  const heard: DomainEventListener<IncomingMmsRow> = {};
  const { inTransaction, committed } = listener;
  if (inTransaction) heard.inTransaction = (trx, mms) => inTransaction.call(listener, trx, receivedText(mms));
  if (committed) heard.committed = (mms) => committed.call(listener, receivedText(mms));
  return heard;
}
