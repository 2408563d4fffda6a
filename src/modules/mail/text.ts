// The SMS text of an email: its subject, its plain-text body or both, as the account chose (or the
// gateway's SMTP_TEXT). The body loses what follows a signature separator ("-- " alone on a line) and the
// lines quoted from an earlier message ("> ..."), so that a reply from a mail program carries only
// what its writer typed.
import type { MailTextSource } from './types.ts';

export function smsTextOf(source: MailTextSource, subject: string | undefined, body: string | undefined): string {
  const cleanSubject = (subject ?? '').replace(/\s+/g, ' ').trim();
  const cleanBody = stripQuotes(body ?? '');
  if (source === 'subject') return cleanSubject;
  if (source === 'body') return cleanBody;
  return [cleanSubject, cleanBody].filter(Boolean).join('\n');
}

function stripQuotes(body: string): string {
  const lines = body.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (const line of lines) {
    // The signature separator (RFC 3676: dash, dash, space); some programs drop the space.
    if (line === '-- ' || line === '--') break;
    if (line.startsWith('>')) continue;
    kept.push(line);
  }
  // "On <date>, <someone> wrote:" introduces the quote just removed.
  while (kept.length > 0 && /^\s*$|wrote:\s*$/.test(kept[kept.length - 1]!)) kept.pop();
  return kept.join('\n').trim();
}
