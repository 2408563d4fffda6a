// What a command that opens the database prints when a running gateway holds the embedded one:
// the curl that does the same through that gateway, to paste with a key of the account.

/** The curl line for `method url`, with a key holding `permission` (and the account named, when known). */
export function curlThroughGateway(method: string, url: string, permission: string, account?: string, body?: unknown): string {
  const holder = account ? `a key of account ${account}` : 'a key of the account';
  const sent = body === undefined ? '' : ` -H "Content-Type: application/json" -d ${shellQuote(JSON.stringify(body))}`;
  return `KEY=...   # ${holder} that holds ${permission}\n  curl -s -X ${method} ${shellQuote(url)} -H "Authorization: Bearer $KEY"${sent}`;
}

/** One shell word, whatever the text holds. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
