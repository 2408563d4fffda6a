// Where the Extended API v1 is mounted. Its own file, so that a command printing the API's
// address does not load the HTTP application to learn it.
export const EXTENDED_PREFIX = '/api/ext/v1';
