// Every error code the agent reports for a modem's or Termux's failure is one the gateway knows,
// in the class docs/delivery.md gives it: a code the gateway did not know would be final there,
// and a network fault would never be retried.
import { expect } from 'chai';
import { AtCommandError } from '../../../agent/src/radio/modem/at-errors.ts';
import { cmsErrorCode } from '../../../agent/src/radio/modem/error-texts.ts';
import { isRetryable, PERMANENT_ERROR_CODES, RETRYABLE_ERROR_CODES } from '../../../src/modules/delivery/send-errors.ts';

const KNOWN: ReadonlySet<string> = new Set([...RETRYABLE_ERROR_CODES, ...PERMANENT_ERROR_CODES]);

describe('modem radio: +CMS ERROR numbers as the gateway\'s error codes', () => {
  it('maps every number from 0 to 700 to a code the gateway lists', () => {
    for (let code = 0; code <= 700; code++) expect(KNOWN.has(cmsErrorCode(code)), `+CMS ERROR ${code} -> ${cmsErrorCode(code)}`).to.equal(true);
    for (const kind of ['ERROR', '+CME ERROR'] as const) {
      for (let code = 0; code <= 200; code++) expect(KNOWN.has(new AtCommandError('AT+CMGS=20', kind, code).sendErrorCode)).to.equal(true);
    }
  });

  it('retries the network\'s and the SIM\'s faults, and not the recipient\'s or the message\'s', () => {
    const retried = (code: number) => isRetryable(cmsErrorCode(code));
    expect([38, 41, 42, 47, 330, 331, 332, 500].filter((code) => !retried(code))).to.deep.equal([]);
    expect([1, 8, 10, 21, 50, 69, 96, 512, 530].filter(retried)).to.deep.equal([]);
    expect([cmsErrorCode(38), cmsErrorCode(1), cmsErrorCode(512)]).to.deep.equal(['network_failure', 'invalid_number', 'manufacturer_error']);
  });
});
