// Concatenated parts are bounded as they arrive: a part that makes the joined message longer
// than the gateway sends is refused at once, and so is every later part of that message; the
// text one bind's unfinished messages hold is capped, past which a new part is throttled.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { bindEsme, issueCredential, SMPP_ON, type TestEsme } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';
import { MAX_HELD_UNITS_PER_BIND } from '../../src/api/smpp/concatenation.ts';
import { MAX_HELD_UNITS_PER_ACCOUNT } from '../../src/api/smpp/part-holds.ts';

const sar = (reference: number, total: number, sequence: number, text: string) => ({
  destination_addr: '+79161234567',
  short_message: text,
  sar_msg_ref_num: reference,
  sar_total_segments: total,
  sar_segment_seqnum: sequence,
});

describe('SMPP: limits on concatenated parts', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });
  let esme: TestEsme;
  beforeEach(async () => {
    esme = await bindEsme(fx.gateway, await issueCredential(fx.tenant, { throughput_per_second: 1000, window_size: 50 }));
  });
  afterEach(() => esme.close());

  const status = async (fields: Record<string, unknown>, on = esme) => (await on.call('submit_sm', fields)).command_status;

  /** Sends the first of two parts of `count` messages, references from `first`, in turns of 40 (within the window); answers the statuses that were not ESME_ROK. */
  async function fill(on: TestEsme, first: number, count: number, part: string): Promise<number[]> {
    const statuses: number[] = [];
    for (let from = first; from < first + count; from += 40) {
      statuses.push(...(await Promise.all(Array.from({ length: Math.min(40, first + count - from) }, (_, i) => status(sar(from + i, 2, 1, part), on)))));
    }
    return statuses.filter((answer) => answer !== STATUS.ESME_ROK);
  }

  it('when a part makes the joined message longer than 170 characters, then it and every later part are refused ESME_RINVMSGLEN, and nothing is stored', async () => {
    const part = 'x'.repeat(100);
    expect(await status(sar(5, 3, 1, part))).to.equal(STATUS.ESME_ROK);
    expect(await status(sar(5, 3, 2, part))).to.equal(STATUS.ESME_RINVMSGLEN);
    expect(await status(sar(5, 3, 3, 'short'))).to.equal(STATUS.ESME_RINVMSGLEN);
    expect((await fx.tenant.api.get('/sms')).body.data).to.have.length(0);
    // Every part was answered: the reference is free for the next message.
    const answers = [];
    for (const sequence of [1, 2, 3]) answers.push(await esme.call('submit_sm', sar(5, 3, sequence, 'fits ')));
    expect(answers.map((answer) => answer.command_status)).to.deep.equal([STATUS.ESME_ROK, STATUS.ESME_ROK, STATUS.ESME_ROK]);
    expect((await fx.tenant.api.get(`/sms/${answers[0]!.message_id}`)).body.message).to.equal('fits fits fits ');
  });

  it('when a bind\'s unfinished messages hold as much text as they may, then a new part is refused ESME_RTHROTTLED, and taken once a message completes', async () => {
    const part = 'y'.repeat(170);
    const fit = Math.floor(MAX_HELD_UNITS_PER_BIND / part.length);
    expect(await fill(esme, 0, fit, part)).to.deep.equal([]);
    expect(await status(sar(fit, 2, 1, part))).to.equal(STATUS.ESME_RTHROTTLED);
    // The first message's last part would make it 171 characters: refused, and the text the
    // message held is given back.
    expect(await status(sar(0, 2, 2, 'z'))).to.equal(STATUS.ESME_RINVMSGLEN);
    expect(await status(sar(fit, 2, 1, part))).to.equal(STATUS.ESME_ROK);
  });

  it('when an account\'s binds together hold as much text as an account may, then a part on yet another bind is refused ESME_RTHROTTLED', async () => {
    const part = 'w'.repeat(170);
    const perBind = Math.floor(MAX_HELD_UNITS_PER_BIND / part.length);
    const binds = Math.floor(MAX_HELD_UNITS_PER_ACCOUNT / (perBind * part.length));
    const others: TestEsme[] = [];
    try {
      for (let n = 0; n < binds; n++) {
        // A credential each: each has its own throughput limit.
        others.push(await bindEsme(fx.gateway, await issueCredential(fx.tenant, { throughput_per_second: 1000, window_size: 50 })));
        expect(await fill(others[n]!, n * perBind, perBind, part)).to.deep.equal([]);
      }
      const left = Math.floor((MAX_HELD_UNITS_PER_ACCOUNT - binds * perBind * part.length) / part.length);
      expect(await fill(esme, 0, left, part)).to.deep.equal([]);
      expect(await status(sar(left, 2, 1, part))).to.equal(STATUS.ESME_RTHROTTLED);
      // Another account is not held back by this one.
      const elsewhere = await bindEsme(fx.gateway, await issueCredential(await fx.newTenant(), { throughput_per_second: 1000, window_size: 50 }));
      others.push(elsewhere);
      expect(await status(sar(0, 2, 1, part), elsewhere)).to.equal(STATUS.ESME_ROK);
    } finally {
      for (const other of others) other.close();
    }
  });
});
