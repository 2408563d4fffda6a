import { Type } from '@sinclair/typebox';

const Timestamp = Type.String({ format: 'date-time' });
const Role = Type.Union([Type.Literal('owner'), Type.Literal('viewer')], { description: 'owner: everything in the account; viewer: read only' });
const OneTimePassword = Type.String({ description: 'shown this once; the user must change it at first login' });

export const UserView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String({ description: 'lowercased; unique across the instance' }),
  role: Role,
  is_admin: Type.Boolean({ description: 'instance administrator (manages accounts); set from the CLI only' }),
  must_change_password: Type.Boolean({ description: 'the password is a one-time one: nothing but changing it is allowed' }),
  disabled: Type.Boolean({ description: 'a disabled user cannot log in and has no sessions' }),
  disabled_at: Type.Union([Timestamp, Type.Null()], { description: 'when the user was disabled; null while enabled' }),
  created_at: Timestamp,
  last_login_at: Type.Union([Timestamp, Type.Null()], { description: 'the last successful login; null until the first' }),
});

export const UserList = Type.Object({ data: Type.Array(UserView, { description: 'the account\'s users, oldest first' }) });

export const UserWithPassword = Type.Object({
  ...UserView.properties,
  one_time_password: Type.Optional(OneTimePassword),
});

export const NewPassword = Type.Object({ user: UserView, one_time_password: OneTimePassword });

export const CreateUserBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 256, description: 'such as name@example.com; compared case-insensitively' }),
    role: Role,
    password: Type.Optional(
      Type.String({ minLength: 12, maxLength: 256, description: 'at least 12 characters; omitted: a one-time password is generated and answered once' }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateUserBody = Type.Object(
  {
    role: Type.Optional(Role),
    disabled: Type.Optional(Type.Boolean({ description: 'true: the user cannot log in and their sessions end at once' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const UserIdParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'user id (UUID)' }) });
