// The AT channel alone, over an in-memory stream the test writes the modem's side of.
import { expect } from 'chai';
import { Duplex } from 'node:stream';
import { AtChannel } from '../../../agent/src/radio/modem/at-channel.ts';
import { AtCommandError, AtTimeoutError } from '../../../agent/src/radio/modem/at-errors.ts';
import type { UnsolicitedEvent } from '../../../agent/src/radio/modem/unsolicited.ts';

/** The modem's end: what the channel writes lands in `written`; `say` plays the modem's output. */
class FakePort extends Duplex {
  written = '';
  private readonly waiters: { match: RegExp; resolve: () => void }[] = [];

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.written += chunk.toString('latin1');
    for (const waiter of [...this.waiters]) {
      if (waiter.match.test(this.written)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
    callback();
  }

  say(text: string): void {
    this.push(Buffer.from(text, 'latin1'));
  }

  /** Resolves once the channel has written something matching. */
  written$(match: RegExp): Promise<void> {
    if (match.test(this.written)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }
}

function channelOn(port: FakePort, timeoutMs = 1000) {
  const events: UnsolicitedEvent[] = [];
  const hangs: AtTimeoutError[] = [];
  const channel = new AtChannel(port, {
    timeoutMs,
    onUnsolicited: (event) => events.push(event),
    onHang: (error) => hangs.push(error),
    onClosed: () => {},
  });
  return { channel, events, hangs };
}

describe('modem radio: AT channel', () => {
  describe('when a notice arrives in the middle of a response', () => {
    it('then the notice goes to the listener and the response keeps only its own lines', async () => {
      const port = new FakePort();
      const { channel, events } = channelOn(port);
      const answer = channel.command('AT+CSQ');
      await port.written$(/AT\+CSQ\r$/);
      port.say('\r\n+CMTI: "SM",4\r\n\r\n+CSQ: 17,99\r\n\r\n+CDS: 25\r\n0006D60B911326880736F4111011719551401110117195714000\r\nRING\r\n\r\nOK\r\n');
      expect(await answer).to.deep.equal(['+CSQ: 17,99']);
      expect(events).to.deep.equal([
        { type: 'stored-message', storage: 'SM', index: 4 },
        { type: 'direct-report', pdu: '0006D60B911326880736F4111011719551401110117195714000', tpduLength: 25 },
        { type: 'other', line: 'RING' },
      ]);
    });
  });

  describe('when echo is still on and garbage comes between commands', () => {
    it('then the echoed command is skipped, noise lines are counted and ignored, and results still match commands', async () => {
      const port = new FakePort();
      const { channel, events } = channelOn(port);
      const first = channel.command('ATE0');
      await port.written$(/ATE0\r$/);
      port.say('ATE0\r\r\nOK\r\n');
      expect(await first).to.deep.equal([]);
      port.say('\r\n\x00\x07\x1f noise\r\n%%%\r\n');
      const second = channel.command('AT+CGMM');
      await port.written$(/AT\+CGMM\r$/);
      port.say('\r\nModel X\r\n\r\nOK\r\n');
      expect(await second).to.deep.equal(['Model X']);
      expect(channel.ignoredLines).to.equal(2);
      expect(events).to.deep.equal([]);
    });
  });

  describe('when a command gets +CMS ERROR or +CME ERROR', () => {
    it('then it fails with the kind, the code and its meaning', async () => {
      const port = new FakePort();
      const { channel } = channelOn(port);
      const failing = channel.command('AT+CMGR=9');
      await port.written$(/AT\+CMGR=9\r$/);
      port.say('\r\n+CMS ERROR: 321\r\n');
      const error = await failing.then(() => undefined, (caught: unknown) => caught);
      expect(error).to.be.instanceOf(AtCommandError);
      expect((error as AtCommandError).description).to.equal('+CMS ERROR 321: invalid memory index');
    });
  });

  describe('when AT+CMGS is sent', () => {
    it('then the PDU and Ctrl-Z follow the > prompt, and +CMGS comes back as a line', async () => {
      const port = new FakePort();
      const { channel } = channelOn(port);
      const sending = channel.commandWithPdu('AT+CMGS=23', '0011000B916407281553F80000AA0AE8329BFD4697D9EC37');
      await port.written$(/AT\+CMGS=23\r$/);
      expect(port.written).to.not.include('0011000B');
      port.say('\r\n> ');
      await port.written$(/EC37\x1a$/);
      port.say('\r\n+CMGS: 12\r\n\r\nOK\r\n');
      expect(await sending).to.deep.equal(['+CMGS: 12']);
    });
  });

  describe('when the modem does not answer in time', () => {
    it('then the command fails with a timeout, the queued one fails too, the hang is reported once, and later commands are refused', async () => {
      const port = new FakePort();
      const { channel, hangs } = channelOn(port, 100);
      const first = channel.command('AT+CSQ').then(() => 'answered', (error: Error) => error.name);
      const second = channel.command('AT+CBC').then(() => 'answered', (error: Error) => error.name);
      expect(await first).to.equal('AtTimeoutError');
      expect(await second).to.equal('AtChannelClosedError');
      expect(hangs.map((hang) => hang.command)).to.deep.equal(['AT+CSQ']);
      expect(await channel.command('AT').then(() => 'answered', (error: Error) => error.name)).to.equal('AtChannelClosedError');
      expect(port.written).to.not.include('AT+CBC');
    });
  });
});
