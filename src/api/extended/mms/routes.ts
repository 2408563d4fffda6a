// Extended API v1: media uploads and downloads, sending MMS, and the MMS phones received.
import { groupRoutes, resourceRoutes } from '../../../http/resource-routes.ts';
import { AppError } from '../../../common/errors.ts';
import type { MessageService } from '../../../modules/messages/service.ts';
import type { SmsRecord } from '../../../modules/messages/types.ts';
import { idempotencyKey, withReplayHeader } from '../../../http/idempotent-request.ts';
import { createMms, type CreateMmsParts } from '../../../use-cases/create-mms.ts';
import { wayInOf } from '../messages/send-options.ts';
import { ACCEPTED_MEDIA_TYPES } from '../../../modules/mms/media-type.ts';
import type { MediaService } from '../../../modules/mms/media-service.ts';
import { presentIncomingMms, presentMedia, presentMms } from '../../../modules/mms/presenter.ts';
import {
  CreateMmsBody,
  IncomingMmsList,
  IncomingMmsListQuery,
  IncomingMmsView,
  MediaBody,
  MediaIdParams,
  MediaView,
  MmsIdParams,
  MmsView,
} from '../../../modules/mms/schema.ts';
import { MAX_PARTS } from '../../../modules/mms/service.ts';
import type { OutgoingMmsRow, OutgoingPartRow } from '../../../modules/mms/types.ts';
import { receiveUpload } from '../../../http/streamed-upload.ts';
import { serveMedia } from './media-download.ts';

export type MmsRouteParts = CreateMmsParts & { media: MediaService; messages: MessageService };

/** Media, sent MMS and received MMS are all read with sms:read and sent with sms:send. */
const MMS = { tag: 'MMS', read: 'sms:read', write: 'sms:send' } as const;

/** An MMS sent through the API: its SMS, and what of it is MMS alone. */
type SentMms = { sms: SmsRecord; mms: OutgoingMmsRow; parts: OutgoingPartRow[] };

export function mmsRoutes(parts: MmsRouteParts) {
  const { media, mms, messages } = parts;
  const files = groupRoutes(MMS);
  const sent = resourceRoutes({
    ...MMS,
    params: MmsIdParams,
    missing: ['invalid_id', 'mms_not_found'],
    one: { description: 'the MMS', schema: MmsView },
    present: (one: SentMms) => presentMms(one.sms, one.mms, one.parts),
  });
  const received = resourceRoutes({
    ...MMS,
    params: MmsIdParams,
    missing: ['invalid_id', 'mms_not_found'],
    one: { description: 'the received MMS', schema: IncomingMmsView },
    present: presentIncomingMms,
  });
  return [
    files.route({
      method: 'post',
      path: '/media',
      operationId: 'uploadMedia',
      summary: 'Upload media for an MMS (the raw bytes as the body)',
      description:
        `The body is the file itself, its Content-Type the file's type: one of ${ACCEPTED_MEDIA_TYPES.join(', ')} (image/jpg, ` +
        'audio/mp3, audio/x-wav, text/x-vcard are taken as their usual names). The bytes must be what the Content-Type says (415 ' +
        'media_type_refused otherwise). At most MMS_MAX_PART_BYTES (600 KiB unless configured): a larger body is refused ' +
        'with 413 as soon as its Content-Length (or the bytes counted so far) passes the limit, and the connection is closed. ' +
        'The bytes are streamed to storage, never held whole. Name the answer\'s id in media_ids of POST /mms; media are ' +
        'removed after MEDIA_RETENTION_DAYS when set.',
      rawBody: { contentTypes: ['image/*', 'audio/*', 'video/*', 'text/plain', 'text/vcard'], description: 'the media bytes' },
      responses: { 201: { description: 'stored', schema: MediaView } },
      errors: ['payload_too_large', 'media_type_refused', 'validation_failed'],
      async handle({ auth, ctx }) {
        const stored = await receiveUpload(ctx, (body, declaredBytes) => media.upload(auth.accountId, ctx.get('content-type'), body, declaredBytes, 'upload'));
        return { status: 201, body: presentMedia(stored) };
      },
    }),
    files.route({
      method: 'get',
      path: '/media/:id',
      operationId: 'downloadMedia',
      summary: 'Download media: an upload, or a part of a received MMS (Range requests answered)',
      description:
        'Streams the bytes with their Content-Type, Content-Length and Accept-Ranges: bytes. One byte range per request ' +
        '(bytes=0-1023, bytes=1000-, bytes=-500) is answered 206 with Content-Range; a range past the end is 416.',
      params: MediaIdParams,
      responses: {
        // In the media's own type (image/png, video/mp4...), which only the upload said.
        200: { description: 'the whole file', contentType: '*/*', schema: MediaBody },
        206: { description: 'the requested byte range', contentType: '*/*', schema: MediaBody },
      },
      errors: ['invalid_id', 'media_not_found', 'range_not_satisfiable'],
      handle: ({ auth, params, ctx }) => serveMedia(ctx, () => media.open(auth.accountId, params.id, ctx.get('range') || undefined)),
    }),
    sent.route({
      method: 'post',
      path: '/mms',
      operationId: 'createMms',
      idempotent: true,
      summary: 'Send an MMS',
      description:
        'phone (one recipient) or phones (a group MMS: ONE message to all of them, sent by one phone, with one status), an ' +
        `optional text (message) and subject, and up to ${MAX_PARTS} media_ids from POST /media, together at most ` +
        'MMS_MAX_MESSAGE_BYTES (1 MiB unless configured; 413 mms_too_large past it). Without media_ids it is a text-only MMS ' +
        '(a group text, a subject line), sent with no parts; it needs a message or a subject (400 validation_failed with ' +
        'neither). A media id that is not this ' +
        'account\'s is 404 media_not_found, naming the field. The MMS is an SMS of kind mms: it is queued, paced, failed over, ' +
        'cancelled (POST /sms/{id}/cancel), listed (GET /sms) and reported (sms.status_changed) as any SMS, and takes ' +
        'device_id, sim_slot, callback_id, send_at, valid_until, ttl, priority and Idempotency-Key as POST /sms does. The ' +
        'phone fetches each part from the gateway before sending. Only a device that sends MMS is handed one (a device that ' +
        'says otherwise in its heartbeat\'s capabilities is not; one that never said is taken to): when no device of the account ' +
        'can, or the device named cannot, the request is refused at once (409 no_capable_device, device_not_capable).',
      body: CreateMmsBody,
      responses: { 201: { description: 'the MMS, status pending', schema: MmsView } },
      errors: ['validation_failed', 'invalid_phone', 'device_not_found', 'device_cannot_send', 'device_not_capable', 'no_capable_device', 'media_not_found', 'mms_too_large', 'idempotency_key_reused', 'unknown_callback'],
      async handle({ auth, body, ctx }) {
        if ((body.phone === undefined) === (body.phones === undefined)) {
          const message = body.phone === undefined ? 'phone or phones is required' : 'give phone or phones, not both';
          throw new AppError('validation_failed', message, [{ field: 'phone', message }]);
        }
        const mediaIds = body.media_ids ?? [];
        // A text-only MMS is an MMS: a group text, a subject line, a text longer than an SMS.
        if (mediaIds.length === 0 && !body.message && !body.subject) {
          throw new AppError('validation_failed', 'an MMS needs media_ids, a message or a subject', [{ field: 'media_ids', message: 'media_ids is empty, and there is no message nor subject' }]);
        }
        const result = await createMms(
          parts,
          auth.accountId,
          { key: idempotencyKey(ctx), operation: 'POST /api/ext/v1/mms', body },
          {
            phones: body.phones ?? [body.phone!],
            phoneField: body.phones ? 'phones' : 'phone',
            message: body.message,
            subject: body.subject,
            mediaIds,
            sms: {
              deviceId: body.device_id,
              simSlot: body.sim_slot,
              callbackId: body.callback_id || undefined,
              sendAt: body.send_at,
              validUntil: body.valid_until,
              ttl: body.ttl,
              priority: body.priority,
              wayIn: wayInOf(auth),
            },
          },
          (sms, prepared) => ({
            status: 201,
            body: presentMms(
              sms,
              { sms_id: sms.id, subject: prepared.subject, recipients: prepared.recipients },
              prepared.media.map((row, position) => ({ sms_id: sms.id, position, media_id: row.id, content_type: row.content_type, size_bytes: row.size_bytes })),
            ),
          }),
        );
        return withReplayHeader(result);
      },
    }),
    // Before /mms/:id, which would otherwise take "incoming" for an id.
    received.list({
      path: '/mms/incoming',
      operationId: 'listIncomingMms',
      summary: 'List MMS received by the account\'s devices, newest first',
      description: 'Each with its parts; a part\'s download_path is null until the phone has uploaded it. Kept only while the device\'s forward_incoming_sms is on.',
      query: IncomingMmsListQuery,
      answer: { description: 'a page of received MMS', schema: IncomingMmsList },
      list: async ({ auth, query }, cursor) =>
        (await mms.listIncoming(auth.accountId, query.device_id ? { deviceId: query.device_id } : {}, query.limit, cursor)).map((row) => ({ ...row, id: row.mms.id, created_at: row.mms.created_at })),
    }),
    received.get({
      path: '/mms/incoming/:id',
      operationId: 'getIncomingMms',
      summary: 'Get a received MMS with its parts',
      read: ({ auth, params }) => mms.incoming(auth.accountId, params.id),
    }),
    sent.get({
      path: '/mms/:id',
      operationId: 'getMms',
      summary: 'Get an MMS sent through the API, with its subject, recipients and parts',
      description: 'Its status and history are those of the SMS of the same id (GET /sms/{id}).',
      async read({ auth, params }) {
        const sms = await messages.get(auth.accountId, params.id).catch((error: unknown) => {
          throw error instanceof AppError && error.code === 'sms_not_found' ? new AppError('mms_not_found') : error;
        });
        const found = await mms.outgoing(sms.id);
        if (!found) throw new AppError('mms_not_found', 'this SMS is no MMS');
        return { sms, ...found };
      },
    }),
  ];
}
