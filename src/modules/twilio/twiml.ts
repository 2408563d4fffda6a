// The TwiML a receiver of an incoming SMS may answer with: <Response><Message>text</Message>
// </Response> (or <Message><Body>text</Body></Message>), one reply per <Message>, to the sender
// unless it names another number in its "to" attribute. Only <Message> is acted on; any other
// verb is ignored, as an SMS gateway has no calls to redirect.

export interface TwimlReply {
  to?: string;
  body: string;
}

/** At most this many replies are sent for one incoming SMS, whatever the answer holds. */
export const MAX_REPLIES = 10;

export function repliesOf(answer: string): TwimlReply[] {
  const response = /<Response\b[^>]*>([\s\S]*?)<\/Response>/.exec(answer);
  if (!response) return [];
  const replies: TwimlReply[] = [];
  for (const match of response[1]!.matchAll(/<Message\b([^>]*)>([\s\S]*?)<\/Message>/g)) {
    const inner = /<Body\b[^>]*>([\s\S]*?)<\/Body>/.exec(match[2]!)?.[1] ?? match[2]!.replace(/<[^>]*>/g, '');
    const body = unescapeXml(inner).trim();
    const to = /\bto\s*=\s*"([^"]*)"/.exec(match[1]!)?.[1];
    if (body) replies.push({ body, ...(to ? { to: unescapeXml(to) } : {}) });
    if (replies.length === MAX_REPLIES) break;
  }
  return replies;
}

function unescapeXml(text: string): string {
  return text
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
