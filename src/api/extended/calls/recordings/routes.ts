// Recordings over HTTP: the phone's upload (device family, device id and token) and the
// account's download (Extended API, calls:read) with Range support for audio players.
import { defineRoute } from '../../../../http/route.ts';
import { refusingRestOfBody, streamUpload } from '../../../../http/streamed-upload.ts';
import { serveRange } from '../../../../http/range-download.ts';
import type { DeviceService } from '../../../../modules/devices/service.ts';
import type { AuthThrottle } from '../../../../common/auth-throttle.ts';
import { presentCall } from '../../../../modules/calls/presenter.ts';
import { call } from '../resource.ts';
import { RecordingView } from '../../../../modules/calls/schema.ts';
import { authenticateDevice } from './device-auth.ts';
import { AudioBody, DeviceCallParams } from '../../../../modules/calls/recordings/schema.ts';
import type { RecordingService } from '../../../../modules/calls/recordings/service.ts';

export const DEVICE_PREFIX = '/api/device/v1';

const UPLOAD_DESCRIPTION =
  'For the phones, not for API clients. Authenticated like the phone\'s MQTT connection: HTTP Basic with the device id ' +
  'as the user name and the device token as the password (no API key). The body is the raw audio (any Content-Type: the ' +
  'bytes themselves are checked). Accepted: AMR, 3GPP, MP4/M4A (AAC), AAC (ADTS), MP3, Ogg (Opus, Vorbis), WAV. The call ' +
  'must have been reported on the phone\'s calls topic first, and its record_calls setting must be on. One recording per ' +
  'call: a repeated upload stores nothing and answers 200 with the recording already stored. A body over RECORDING_MAX_BYTES ' +
  'is refused with 413 as soon as its Content-Length (or the bytes counted so far) passes the limit, and the connection is closed.';

export function deviceRecordingRoutes(recordings: RecordingService, devices: Pick<DeviceService, 'findAnyAccount'>, throttle: AuthThrottle) {
  return [
    defineRoute({
      method: 'put',
      path: '/calls/:callId/recording',
      operationId: 'uploadCallRecording',
      summary: 'Upload the recording of a call the phone reported (device credentials)',
      description: UPLOAD_DESCRIPTION,
      tag: 'Device uploads',
      permission: 'device',
      params: DeviceCallParams,
      responses: {
        201: { description: 'stored: the recording\'s metadata', schema: RecordingView },
        200: { description: 'the call already had a recording: its metadata, nothing replaced', schema: RecordingView },
      },
      errors: ['invalid_device_credentials', 'too_many_auth_failures', 'recording_disabled', 'call_not_found', 'payload_too_large', 'not_audio'],
      handle: ({ params, ctx }) =>
        refusingRestOfBody(ctx, async () => {
          const device = await authenticateDevice(ctx, devices, throttle);
          const { call, recording, created } = await streamUpload(ctx, (body, declaredBytes) => recordings.upload(device, params.callId, body, declaredBytes));
          return { status: created ? 201 : 200, body: presentCall(call, recording).recording };
        }),
    }),
  ];
}

export function recordingRoutes(recordings: RecordingService) {
  return [
    call.routeOnOne({
      method: 'get',
      path: '/calls/:id/recording',
      operationId: 'downloadCallRecording',
      summary: 'Download a call\'s recording (Range requests answered)',
      description:
        'Streams the audio with its Content-Type (what its bytes are), Content-Length and Accept-Ranges: bytes. One byte ' +
        'range per request (bytes=0-1023, bytes=1000-, bytes=-500) is answered 206 with Content-Range; a range past the end ' +
        'is 416 with Content-Range: bytes */size.',
      responses: {
        200: { description: 'the whole recording', contentType: 'audio/*', schema: AudioBody },
        206: { description: 'the requested byte range', contentType: 'audio/*', schema: AudioBody },
      },
      errors: ['recording_not_found', 'range_not_satisfiable'],
      handle: ({ auth, params, ctx }) =>
        serveRange(ctx, () => recordings.download(auth.accountId, params.id, ctx.get('range') || undefined), (download) => download.recording),
    }),
  ];
}
