import { Type } from '@sinclair/typebox';

export const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 256 }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);

export const ChangePasswordBody = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: 256 }),
    new_password: Type.String({ minLength: 12, maxLength: 256, description: 'at least 12 characters' }),
  },
  { additionalProperties: false },
);

export const SessionStatus = Type.Object({
  signed_in: Type.Boolean({ description: 'true: the cookie names a live session (GET /session gives it)' }),
});

export const SessionView = Type.Object({
  user: Type.Object({
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    role: Type.Union([Type.Literal('owner'), Type.Literal('viewer')]),
    is_admin: Type.Boolean(),
    must_change_password: Type.Boolean(),
  }),
  csrf_token: Type.String({ description: 'send it back as the X-CSRF-Token header with every request that changes something' }),
});
