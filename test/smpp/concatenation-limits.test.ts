// Concatenated parts are bounded as they arrive: a part that makes the joined message longer
// than the gateway sends is refused at once, and so is every later part of that message; the
// text one bind's unfinished messages hold is capped, past which a new part is throttled.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { bindEsme, issueCredential, SMPP_ON, type TestEsme } from '../support/smpp-client.ts';
import { STATUS } from '../../src/smpp/command-status.ts';
import { MAX_HELD_UNITS_PER_BIND } from '../../src/smpp/concatenation.ts';

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

  const status = async (fields: Record<string, unknown>) => (await esme.call('submit_sm', fields)).command_status;

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
    const statuses: number[] = [];
    // In turns of 40, within the credential's window.
    for (let first = 0; first < fit; first += 40) {
      statuses.push(...(await Promise.all(Array.from({ length: Math.min(40, fit - first) }, (_, i) => status(sar(first + i, 2, 1, part))))));
    }
    expect(statuses.filter((answer) => answer !== STATUS.ESME_ROK)).to.deep.equal([]);
    expect(await status(sar(fit, 2, 1, part))).to.equal(STATUS.ESME_RTHROTTLED);
    // The first message's last part would make it 171 characters: refused, and the text the
    // message held is given back.
    expect(await status(sar(0, 2, 2, 'z'))).to.equal(STATUS.ESME_RINVMSGLEN);
    expect(await status(sar(fit, 2, 1, part))).to.equal(STATUS.ESME_ROK);
  });
});
