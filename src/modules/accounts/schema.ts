import { PageOf, PageQuery } from '../../common/page-schema.ts';
import { Type } from '@sinclair/typebox';
import { UserView } from '../users/schema.ts';

const Timestamp = Type.String({ format: 'date-time' });
const AccountName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[\\w.@-]+$', description: '1-64 letters, digits, or . _ - @; unique' });

export const AccountView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  created_at: Timestamp,
  disabled: Type.Boolean({ description: 'a disabled account\'s keys and sessions are refused (403 account_disabled)' }),
  disabled_at: Type.Union([Timestamp, Type.Null()], { description: 'when it was disabled; null while enabled' }),
  users: Type.Integer({ minimum: 0, description: 'how many users it has' }),
  devices: Type.Integer({ minimum: 0, description: 'how many devices it has (deleted ones not counted)' }),
  max_send_attempts: Type.Integer({
    minimum: 1,
    maximum: 5,
    description: 'attempts a send failed with a retryable error gets (another SIM or phone) on a device whose own max_send_attempts is null; default 2',
  }),
  yours: Type.Boolean({ description: 'true for the administrator\'s own account, which they cannot disable (409 cannot_change_self)' }),
});

export const AccountList = PageOf(AccountView);
export const AccountListQuery = Type.Object(PageQuery);

export const OpenedAccount = Type.Object({
  account: AccountView,
  owner: UserView,
  one_time_password: Type.String({ description: 'the owner\'s password, shown this once; it must be changed at first login' }),
});

export const CreateAccountBody = Type.Object(
  {
    name: AccountName,
    owner_email: Type.String({ minLength: 3, maxLength: 256, description: 'the first owner\'s email; a one-time password is answered once' }),
  },
  { additionalProperties: false },
);

export const UpdateAccountBody = Type.Object(
  {
    name: Type.Optional(AccountName),
    disabled: Type.Optional(Type.Boolean({ description: 'true: the account\'s keys and sessions are refused and its users cannot log in' })),
    max_send_attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, description: 'the account\'s default attempts per failed send, 1-5' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const AccountIdParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'account id (UUID)' }) });

export const DeleteAccountQuery = Type.Object(
  { confirm: Type.String({ minLength: 1, maxLength: 64, description: 'the account\'s name, typed again' }) },
  { additionalProperties: false },
);
