// Recordings over HTTP: the phone's upload (device family, device id and token) and the
// account's download (Extended API, calls:read) with Range support for audio players.
import { finished, PassThrough, type Readable } from 'node:stream';
import type { Context } from 'koa';
import { defineRoute } from '../../../http/route.ts';
import { AppError } from '../../../common/errors.ts';
import type { DeviceService } from '../../devices/service.ts';
import type { AuthThrottle } from '../../../common/auth-throttle.ts';
import { presentCall } from '../presenter.ts';
import { CallIdParams, RecordingView } from '../schema.ts';
import { authenticateDevice } from './device-auth.ts';
import { OVERLOAD_RETRY_AFTER_SECONDS, OverloadedOnResume, whileClientSends } from '../../../http/middleware/admission.ts';
import { AudioBody, DeviceCallParams } from './schema.ts';
import { UnsatisfiableRange, type RecordingService } from './service.ts';

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
      async handle({ params, ctx }) {
        try {
          const device = await authenticateDevice(ctx, devices, throttle);
          const declared = ctx.get('content-length');
          // A phone on a slow link takes minutes to upload: it holds no admission place meanwhile.
          const upload = () => recordings.upload(device, params.callId, uploadBody(ctx), declared ? Number(declared) : undefined);
          const { call, recording, created } = await whileClientSends(ctx.req, upload).catch((error: unknown) => {
            // The phone went away mid-body: a client's doing, not a gateway failure to log as one.
            if (!(error instanceof AppError) && ctx.req.readableAborted) throw new AppError('validation_failed', 'the upload was cut short: nothing was stored');
            if (error instanceof OverloadedOnResume) ctx.set('Retry-After', String(OVERLOAD_RETRY_AFTER_SECONDS));
            throw error;
          });
          return { status: created ? 201 : 200, body: presentCall(call, recording).recording };
        } finally {
          // A refusal, or a repeat answered from what is stored, has not read the body.
          refuseRestOfBody(ctx);
        }
      },
    }),
  ];
}

export function recordingRoutes(recordings: RecordingService) {
  return [
    defineRoute({
      method: 'get',
      path: '/calls/:id/recording',
      operationId: 'downloadCallRecording',
      summary: 'Download a call\'s recording (Range requests answered)',
      description:
        'Streams the audio with its Content-Type (what its bytes are), Content-Length and Accept-Ranges: bytes. One byte ' +
        'range per request (bytes=0-1023, bytes=1000-, bytes=-500) is answered 206 with Content-Range; a range past the end ' +
        'is 416 with Content-Range: bytes */size.',
      tag: 'Calls',
      permission: 'calls:read',
      params: CallIdParams,
      responses: {
        200: { description: 'the whole recording', contentType: 'audio/*', schema: AudioBody },
        206: { description: 'the requested byte range', contentType: 'audio/*', schema: AudioBody },
      },
      errors: ['invalid_id', 'call_not_found', 'recording_not_found', 'range_not_satisfiable'],
      async handle({ auth, params, ctx }) {
        let download;
        try {
          download = await recordings.download(auth.accountId, params.id, ctx.get('range') || undefined);
        } catch (error) {
          if (error instanceof UnsatisfiableRange) ctx.set({ 'Content-Range': `bytes */${error.size}`, 'Accept-Ranges': 'bytes' });
          throw error;
        }
        const { recording, size, range, stream } = download;
        const headers: Record<string, string> = {
          'Content-Type': recording.content_type,
          'Content-Length': String(range ? range.end - range.start + 1 : size),
          'Accept-Ranges': 'bytes',
          ETag: `"${recording.sha256}"`,
          'Cache-Control': 'private, no-cache',
        };
        if (range) headers['Content-Range'] = `bytes ${range.start}-${range.end}/${size}`;
        return { status: range ? 206 : 200, headers, body: stream };
      },
    }),
  ];
}

/**
 * The request body as a stream of its own: a store that gives up on it (the limit, a failure)
 * destroys this stream, never the request, so the client still gets its 413 or 415 answer.
 * A connection cut mid-body fails this stream, and with it the store's write.
 */
export function uploadBody(ctx: Context): Readable {
  const body = new PassThrough();
  // Errors reach the store through its own listeners; this one keeps a late one (the request
  // closed after the answer) from being an unhandled error.
  body.on('error', () => undefined);
  ctx.req.pipe(body);
  finished(ctx.req, (error) => {
    if (error) body.destroy(error);
  });
  return body;
}

/** Answered before the body was read whole: answer, then close the connection instead of reading the rest. */
export function refuseRestOfBody(ctx: Context): void {
  if (ctx.req.complete) return;
  ctx.set('Connection', 'close');
  ctx.res.once('finish', () => ctx.req.destroy());
}
