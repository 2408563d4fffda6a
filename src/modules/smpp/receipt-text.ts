// The delivery receipt's text as ESMEs (Kannel, most CRMs) parse it: the customary form, not
// part of SMPP 3.4 itself but what every SMSC sends. Dates are UTC, YYMMDDhhmm. The text: field
// carries the first 20 characters of the SMS, as is customary; a no_store SMS carries none.

export interface ReceiptFacts {
  smsId: string;
  submittedAt: Date;
  doneAt: Date;
  stat: string;
  delivered: boolean;
  /** The gateway's reason, read into err: as a three-digit code. */
  errorCode: number;
  text: string | null;
}

export function receiptText(facts: ReceiptFacts): string {
  const sample = (facts.text ?? '').slice(0, 20);
  const err = String(Math.min(Math.max(facts.errorCode, 0), 999)).padStart(3, '0');
  return (
    `id:${facts.smsId} sub:001 dlvrd:${facts.delivered ? '001' : '000'} ` +
    `submit date:${smppDate(facts.submittedAt)} done date:${smppDate(facts.doneAt)} ` +
    `stat:${facts.stat} err:${err} text:${sample}`
  );
}

function smppDate(at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getUTCFullYear() % 100)}${two(at.getUTCMonth() + 1)}${two(at.getUTCDate())}${two(at.getUTCHours())}${two(at.getUTCMinutes())}`;
}
