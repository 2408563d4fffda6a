import { Type } from '@sinclair/typebox';
import { PageOf, PageQuery } from '../../common/page-schema.ts';
import { PERMISSIONS } from './permissions.ts';

const Timestamp = Type.String({ format: 'date-time' });
const PermissionName = Type.Union(PERMISSIONS.map((permission) => Type.Literal(permission)));

export const CreateKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100, description: 'a label for people, such as where the key is used' })),
    permissions: Type.Array(PermissionName, {
      minItems: 1,
      maxItems: PERMISSIONS.length,
      uniqueItems: true,
      description: 'what the new key may do; only permissions the calling key holds itself',
    }),
  },
  { additionalProperties: false },
);

export const KeyView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  prefix: Type.String({ description: 'the visible, non-secret start of the key (sgw_ and 10 hex digits)' }),
  name: Type.String(),
  permissions: Type.Array(PermissionName),
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()], { description: 'last successful use; updated at most once a minute; null until the key is first used' }),
  revoked_at: Type.Union([Timestamp, Type.Null()], { description: 'null while the key works' }),
});

export const KeyWithSecret = Type.Object({
  key: Type.String({ description: 'the whole key, for Authorization: Bearer. Shown this once; only its hash is stored' }),
  ...KeyView.properties,
});

export const KeyIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const KeyListQuery = Type.Object(
  {
    ...PageQuery,
    revoked: Type.Optional(Type.Boolean({ description: 'false: only keys that work; true: only revoked ones; absent: both' })),
  },
  { additionalProperties: false },
);

export const KeyList = PageOf(KeyView);
