import { Type } from '@sinclair/typebox';
import { PageOf, PageQuery } from '../../common/page-schema.ts';

export const IncomingSmsView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    device_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'the device that received it; null when it came through an upstream provider (upstream_id)' }),
    phone: Type.String({ description: 'sender, as the phone reported it' }),
    message: Type.String(),
    sim_slot: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'SIM slot it arrived on; null when the phone did not report one' }),
    received_at: Type.String({ format: 'date-time', description: 'when the phone received it' }),
    created_at: Type.String({ format: 'date-time', description: 'when the gateway stored it' }),
    upstream_id: Type.Optional(Type.String({ format: 'uuid', description: 'present only when it came through an upstream provider (docs/routes.md), not a phone' })),
    is_encrypted: Type.Optional(
      Type.Literal(true, {
        description: 'present only when the phone forwarded it end-to-end encrypted: phone and message are ciphertext (docs/encryption.md), kept as they came',
      }),
    ),
  },
  { additionalProperties: false },
);

export const IncomingListQuery = Type.Object(
  { ...PageQuery, device_id: Type.Optional(Type.String({ format: 'uuid' })) },
  { additionalProperties: false },
);

export const IncomingList = PageOf(IncomingSmsView);
