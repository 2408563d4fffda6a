// The Extended API's (and the webhooks') view of media and MMS.
import type { Static } from '@sinclair/typebox';
import type { SmsRecord } from '../messages/types.ts';
import { presentSms } from '../messages/presenter.ts';
import type { IncomingMmsView, IncomingPartView, MediaView, MmsView } from './schema.ts';
import { mediaDownloadPath } from './service.ts';
import type { IncomingMms, IncomingMmsRow, IncomingMmsStatus, IncomingPartRow, MediaRow, OutgoingMmsRow, OutgoingPartRow } from './types.ts';

export function presentMedia(media: MediaRow): Static<typeof MediaView> {
  return {
    id: media.id,
    content_type: media.content_type,
    // bigint comes back from the driver as a string: sizes fit a JS number by far.
    size: Number(media.size_bytes),
    sha256: media.sha256,
    created_at: media.created_at.toISOString(),
    download_path: mediaDownloadPath(media.id),
  };
}

export function presentMms(sms: SmsRecord, mms: OutgoingMmsRow, parts: OutgoingPartRow[]): Static<typeof MmsView> {
  return {
    ...presentSms(sms),
    kind: 'mms',
    subject: mms.subject,
    recipients: mms.recipients,
    parts: parts.map((part) => ({ media_id: part.media_id, content_type: part.content_type, size: Number(part.size_bytes), download_path: mediaDownloadPath(part.media_id) })),
  };
}

export type IncomingMmsViewType = Static<typeof IncomingMmsView>;

export function presentIncomingMms({ mms, parts, media }: IncomingMms): IncomingMmsViewType {
  return {
    id: mms.id,
    device_id: mms.device_id,
    device_mms_id: mms.device_mms_id,
    phone: mms.phone,
    recipients: mms.recipients,
    subject: mms.subject,
    message: mms.message,
    sim_slot: mms.sim_slot,
    received_at: mms.received_at.toISOString(),
    created_at: mms.created_at.toISOString(),
    status: statusOf(mms, parts),
    complete: statusOf(mms, parts) === 'complete',
    parts: parts.map((part) => presentIncomingPart(part, part.media_id ? media.get(part.media_id) : undefined)),
  };
}

export function presentIncomingPart(part: IncomingPartRow, stored: MediaRow | undefined): Static<typeof IncomingPartView> {
  return {
    id: part.part_id,
    content_type: part.content_type,
    size: Number(stored?.size_bytes ?? part.size_bytes),
    uploaded: part.media_id !== null,
    media_id: part.media_id,
    sha256: stored?.sha256 ?? null,
    download_path: part.media_id ? mediaDownloadPath(part.media_id) : null,
    missing_reason: part.media_id ? null : part.missing_reason,
  };
}

/** Ended with every part uploaded, or without some; receiving until it ended. */
function statusOf(mms: IncomingMmsRow, parts: IncomingPartRow[]): IncomingMmsStatus {
  if (mms.completed_at === null) return 'receiving';
  return parts.every((part) => part.media_id !== null) ? 'complete' : 'incomplete';
}
