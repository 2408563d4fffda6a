import { Type } from '@sinclair/typebox';
import { PageOf, PageQuery } from '../../common/page-schema.ts';

export const CALL_DIRECTIONS = ['incoming', 'outgoing', 'missed'] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];

const Direction = Type.Union(CALL_DIRECTIONS.map((direction) => Type.Literal(direction)));

export const RecordingView = Type.Object(
  {
    size_bytes: Type.Integer({ minimum: 0 }),
    content_type: Type.String({ description: 'the audio type found in the bytes themselves, e.g. audio/amr, audio/mp4' }),
    duration_seconds: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description: 'length of the audio, read from a WAV file\'s header; null for other types, whose length the gateway does not read' }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the stored bytes, hex' }),
    created_at: Type.String({ format: 'date-time', description: 'when the upload completed' }),
    download_path: Type.String({ description: 'GET it (with calls:read) for the audio; Range requests are answered' }),
  },
  { additionalProperties: false },
);

export const CallView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    device_id: Type.String({ format: 'uuid', description: 'the phone that made or took the call' }),
    device_call_id: Type.String({ description: 'the phone\'s own id for the call' }),
    direction: Direction,
    phone: Type.String({ description: 'the other party: E.164 when the number parses, else as the phone reported it' }),
    sim_slot: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'SIM slot of the call; null when the phone did not report one' }),
    started_at: Type.String({ format: 'date-time', description: 'when the call started (rang, for a missed call)' }),
    duration_seconds: Type.Integer({ minimum: 0, description: 'talk time; 0 for a missed call' }),
    created_at: Type.String({ format: 'date-time', description: 'when the gateway stored it' }),
    recording: Type.Union([RecordingView, Type.Null()], { description: 'the uploaded recording, or null' }),
  },
  { additionalProperties: false },
);

export const CallListQuery = Type.Object(
  {
    ...PageQuery,
    device_id: Type.Optional(Type.String({ format: 'uuid' })),
    direction: Type.Optional(Direction),
    phone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'only calls with this number (normalized as the phone\'s reports are)' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'started at or after' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'started before' })),
  },
  { additionalProperties: false },
);

export const CallList = PageOf(CallView);

export const CallIdParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'call id (UUID)' }) });
