// The phones' own MMS endpoints (device credentials, HTTP Basic device id:token, as recording
// uploads): fetching the parts of an MMS to send, and uploading the parts of one received.
import { groupRoutes } from '../../../http/resource-routes.ts';
import type { AuthThrottle } from '../../../common/auth-throttle.ts';
import type { DeviceService } from '../../../modules/devices/service.ts';
import { authenticateDevice } from '../calls/recordings/device-auth.ts';
import type { MediaService } from '../../../modules/mms/media-service.ts';
import type { MmsService } from '../../../modules/mms/service.ts';
import { presentIncomingPart } from '../../../modules/mms/presenter.ts';
import { DeviceMmsPartParams, IncomingPartView, MediaBody, MediaIdParams } from '../../../modules/mms/schema.ts';
import { receiveUpload } from '../../../http/streamed-upload.ts';
import { serveMedia } from './media-download.ts';

export function deviceMmsRoutes(media: MediaService, mms: MmsService, devices: Pick<DeviceService, 'findAnyAccount'>, throttle: AuthThrottle) {
  // The phone's own credentials, which each handler checks, open both ways.
  const phone = groupRoutes({ tag: 'Device uploads', read: 'device', write: 'device' });
  return [
    phone.route({
      method: 'get',
      path: '/media/:id',
      operationId: 'fetchMmsPart',
      summary: 'Fetch a part of an MMS to send (device credentials)',
      description:
        'For the phones, not for API clients: the path a send task of kind mms names for each part. Authenticated like the ' +
        'phone\'s MQTT connection (HTTP Basic, device id and token). Media of another account is not found. Range requests are ' +
        'answered as for GET /api/ext/v1/media/{id}.',
      params: MediaIdParams,
      responses: {
        200: { description: 'the whole file', contentType: 'application/octet-stream', schema: MediaBody },
        206: { description: 'the requested byte range', contentType: 'application/octet-stream', schema: MediaBody },
      },
      errors: ['invalid_device_credentials', 'too_many_auth_failures', 'media_not_found', 'range_not_satisfiable'],
      async handle({ params, ctx }) {
        const device = await authenticateDevice(ctx, devices, throttle);
        return serveMedia(ctx, () => media.open(device.account_id, params.id, ctx.get('range') || undefined));
      },
    }),
    phone.route({
      method: 'put',
      path: '/mms/:mmsId/parts/:partId',
      operationId: 'uploadIncomingMmsPart',
      summary: 'Upload a part of an MMS the phone received and reported (device credentials)',
      description:
        'For the phones, not for API clients. The MMS must have been reported on the phone\'s mms topic first, naming this ' +
        'part. The body is the part\'s bytes, which must be the content_type the report declared (415 otherwise), at most ' +
        'MMS_MAX_MESSAGE_BYTES (413, the connection closed). One upload per part: a repeat stores nothing and answers 200 with ' +
        'the part as stored. A refused upload (413, 415) marks the part missing; a good upload still replaces the refusal ' +
        'while the MMS awaits other parts. Once every part is in, or the rest are missing, or an hour after the report, the ' +
        'MMS ends and the mms.received webhook goes out; from then on a part it ended without is 404 mms_part_not_expected.',
      params: DeviceMmsPartParams,
      rawBody: { contentTypes: ['application/octet-stream'], description: 'the part\'s bytes (any Content-Type: the report declared the type)' },
      responses: {
        201: { description: 'stored', schema: IncomingPartView },
        200: { description: 'the part was already uploaded: as stored, nothing replaced', schema: IncomingPartView },
      },
      errors: ['invalid_device_credentials', 'too_many_auth_failures', 'mms_not_found', 'mms_part_not_expected', 'payload_too_large', 'media_type_refused'],
      async handle({ params, ctx }) {
        const { part, media: stored, created } = await receiveUpload(ctx, async (body, declaredBytes) => {
          const device = await authenticateDevice(ctx, devices, throttle);
          return mms.uploadPart(device, params.mmsId, params.partId, body, declaredBytes);
        });
        return { status: created ? 201 : 200, body: presentIncomingPart(part, stored) };
      },
    }),
  ];
}
