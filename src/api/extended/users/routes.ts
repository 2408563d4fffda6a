// Extended API v1: the account's users (the people who log in to the control panel), managed by
// an owner's session or a key holding users:manage. The rules live in the users service, shared
// with the CLI: an account keeps an enabled owner, nobody disables or removes themself, and a
// caller makes nobody more powerful than itself. A one-time password is answered once.
import { resourceRoutes } from '../../../http/resource-routes.ts';
import type { RequestAuth } from '../../../http/middleware/authenticate.ts';
import { presentUser } from '../../../modules/users/presenter.ts';
import { CreateUserBody, NewPassword, UpdateUserBody, UserIdParams, UserList, UserView, UserWithPassword } from '../../../modules/users/schema.ts';
import type { Actor, UserService } from '../../../modules/users/service.ts';

export function userRoutes(users: UserService) {
  const user = resourceRoutes({
    tag: 'Users',
    read: 'users:manage',
    write: 'users:manage',
    params: UserIdParams,
    missing: ['invalid_id', 'user_not_found'],
    one: { description: 'the user', schema: UserView },
    present: presentUser,
  });
  return [
    user.listAll({
      path: '/users',
      operationId: 'listUsers',
      summary: 'List the account\'s users, oldest first',
      answer: { description: 'every user of the account (an account has few)', schema: UserList },
      list: ({ auth }) => users.list(auth.accountId),
    }),
    user.route({
      method: 'post',
      path: '/users',
      operationId: 'createUser',
      summary: 'Create a user; without a password, answers a one-time password once',
      description:
        'Without password a one-time password is generated, answered this once as one_time_password, and must be changed ' +
        'at first login (must_change_password true). Making an owner needs a caller that may do everything an owner may.',
      body: CreateUserBody,
      responses: { 201: { description: 'the user, and the one-time password when none was given', schema: UserWithPassword } },
      errors: ['validation_failed', 'email_taken'],
      async handle({ auth, body }) {
        const { user, oneTimePassword } = await users.create(
          { accountId: auth.accountId, email: body.email, role: body.role, ...(body.password !== undefined ? { password: body.password } : {}) },
          actorOf(auth),
        );
        return { status: 201, body: { ...presentUser(user), ...(oneTimePassword ? { one_time_password: oneTimePassword } : {}) } };
      },
    }),
    user.update({
      path: '/users/:id',
      operationId: 'updateUser',
      summary: 'Change a user\'s role, or disable or enable them',
      description:
        'A disabled user cannot log in (answered like a wrong password) and their sessions end at once. The account\'s last ' +
        'enabled owner cannot be disabled or made a viewer (409 last_owner); a user cannot disable themself (409 cannot_change_self).',
      body: UpdateUserBody,
      answer: 'the user as changed',
      errors: ['last_owner', 'cannot_change_self'],
      update: ({ auth, params, body }) => users.update(auth.accountId, params.id, body, actorOf(auth)),
    }),
    user.routeOnOne({
      method: 'post',
      path: '/users/:id/reset-password',
      operationId: 'resetUserPassword',
      summary: 'Give a user a new one-time password, answered once; their sessions end',
      responses: { 200: { description: 'the user and their one-time password, shown this once', schema: NewPassword } },
      async handle({ auth, params }) {
        const { user, oneTimePassword } = await users.resetPasswordInAccount(auth.accountId, params.id, actorOf(auth));
        return { status: 200, body: { user: presentUser(user), one_time_password: oneTimePassword! } };
      },
    }),
    user.remove({
      path: '/users/:id',
      operationId: 'deleteUser',
      summary: 'Remove a user and end their sessions',
      description: 'The account\'s last enabled owner cannot be removed (409 last_owner), nor can a user remove themself (409 cannot_change_self).',
      done: 'removed',
      errors: ['last_owner', 'cannot_change_self'],
      remove: ({ auth, params }) => users.remove(auth.accountId, params.id, actorOf(auth)),
    }),
  ];
}

function actorOf(auth: RequestAuth): Actor {
  return { permissions: auth.permissions, userId: auth.session?.user.id };
}
