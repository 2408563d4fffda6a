// Extended API v1: the instance's accounts, for the instance administrator only: a logged-in
// user with is_admin (set from the CLI). An API key belongs to one account and never manages
// others, so keys are refused (403 forbidden), as is every other user (403 admin_only): the
// routes are documented in the OpenAPI document, so hiding them behind a 404 would hide nothing.
import { groupRoutes } from '../../../http/resource-routes.ts';
import { presentUser } from '../../../modules/users/presenter.ts';
import type { UserService } from '../../../modules/users/service.ts';
import { presentAccount } from '../../../modules/accounts/presenter.ts';
import { AccountIdParams, AccountList, DeleteAccountQuery, AccountListQuery, AccountView, CreateAccountBody, OpenedAccount, UpdateAccountBody } from '../../../modules/accounts/schema.ts';
import type { AccountService } from '../../../modules/accounts/service.ts';
import { deleteAccount, type DeleteAccountParts } from '../../../use-cases/delete-account.ts';

const ADMIN_ONLY = 'Only for a session of an instance administrator (a user with is_admin); API keys and other users get 403.';

export function accountRoutes(accounts: AccountService, users: UserService, deletion: DeleteAccountParts) {
  // A session of an administrator, checked before anything else of the request is read.
  const account = groupRoutes({ tag: 'Accounts (administrator)', read: 'admin', write: 'admin' });
  return [
    account.list({
      path: '/accounts',
      operationId: 'listAccounts',
      summary: 'List the instance\'s accounts, newest first and paged, with their user and device counts',
      description: ADMIN_ONLY,
      query: AccountListQuery,
      answer: { description: 'a page of accounts, newest first', schema: AccountList },
      errors: ['admin_only', 'password_change_required'],
      list: ({ query }, cursor) => accounts.list(query.limit, cursor),
      present: (row, auth) => presentAccount(row, auth.accountId),
    }),
    account.route({
      method: 'post',
      path: '/accounts',
      operationId: 'createAccount',
      summary: 'Open an account with its first owner; answers the owner\'s one-time password once',
      description: `${ADMIN_ONLY} The owner must change the one-time password at first login. A taken name is 409 conflict, a taken email 409 email_taken; either way nothing is created.`,
      body: CreateAccountBody,
      responses: { 201: { description: 'the account, its owner, and the owner\'s one-time password (shown this once)', schema: OpenedAccount } },
      errors: ['admin_only', 'password_change_required', 'validation_failed', 'conflict', 'email_taken'],
      async handle({ auth, body }) {
        const { account, owner, oneTimePassword } = await accounts.open(body.name, body.owner_email, users);
        return { status: 201, body: { account: presentAccount(account, auth.accountId), owner: presentUser(owner), one_time_password: oneTimePassword } };
      },
    }),
    account.route({
      method: 'patch',
      path: '/accounts/:id',
      operationId: 'updateAccount',
      summary: 'Rename an account, disable or enable it, or set its default attempts per failed send',
      description:
        `${ADMIN_ONLY} A disabled account's API keys and sessions are refused with 403 account_disabled (at once on this ` +
        'gateway, within 5 seconds on others on the same database) and its users cannot log in; nothing is deleted, and ' +
        'enabling it again restores everything. An administrator cannot disable their own account (409 cannot_change_self).',
      params: AccountIdParams,
      body: UpdateAccountBody,
      responses: { 200: { description: 'the account as changed', schema: AccountView } },
      errors: ['admin_only', 'password_change_required', 'invalid_id', 'account_not_found', 'validation_failed', 'conflict', 'cannot_change_self'],
      async handle({ auth, params, body }) {
        return { status: 200, body: presentAccount(await accounts.update(params.id, body, auth.accountId), auth.accountId) };
      },
    }),
    account.route({
      method: 'delete',
      path: '/accounts/:id',
      operationId: 'deleteAccount',
      summary: 'Delete an account with everything in it; confirm with its name',
      description:
        `${ADMIN_ONLY} confirm must repeat the account's name exactly (400 otherwise: nothing is deleted). Its phones are ` +
        'deleted as DELETE /devices/{id} deletes them (connections closed, call recordings removed), then every row of the ' +
        'account: SMS, MMS, received SMS and MMS, media, conversations, keys, users and their sessions, webhooks and their ' +
        'deliveries; the files of its media and recordings are removed from their store (what cannot be at once, by the ' +
        'next retention run). Its keys ' +
        'and sessions are refused from then on. Export it first (GET /account/export) to keep anything. An administrator ' +
        'cannot delete their own account (409 cannot_change_self).',
      params: AccountIdParams,
      query: DeleteAccountQuery,
      responses: { 204: { description: 'deleted' } },
      errors: ['admin_only', 'password_change_required', 'invalid_id', 'account_not_found', 'validation_failed', 'cannot_change_self'],
      async handle({ auth, params, query }) {
        await deleteAccount(deletion, params.id, query.confirm, auth.accountId);
        return { status: 204 };
      },
    }),
  ];
}
