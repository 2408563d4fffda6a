// Logs on a terminal are lines for people; anywhere else, or with LOG_FORMAT=json, JSON lines.
// Both carry the same redactions.
import { expect } from 'chai';
import { createLogger } from '../../src/common/logger.ts';
import { formatLine } from '../../src/common/pretty-log.ts';
import { loadConfig } from '../../src/config.ts';

/** A destination that keeps what is written; `isTTY` makes it look like a terminal. */
function sink(isTTY: boolean) {
  const lines: string[] = [];
  return { lines, stream: { isTTY, write: (chunk: string) => void lines.push(chunk) } };
}

describe('logs: pretty on a terminal, JSON otherwise', () => {
  it('when the destination is a terminal and no format is set, then a line reads time, level, message and fields', () => {
    const { lines, stream } = sink(true);
    createLogger('info', stream as never, 'node-1').info({ port: 3000, host: '0.0.0.0' }, 'gateway listening');
    expect(lines).to.have.length(1);
    // eslint-disable-next-line no-control-regex
    const plain = lines[0]!.replace(/\x1b\[[0-9;]*m/g, '');
    expect(plain).to.match(/^\d\d:\d\d:\d\d\.\d{3} INFO  gateway listening {2}port=3000 host=0\.0\.0\.0\n$/);
  });

  it('when the destination is not a terminal, then lines are JSON', () => {
    const { lines, stream } = sink(false);
    createLogger('info', stream as never).info({ port: 3000 }, 'gateway listening');
    expect(JSON.parse(lines[0]!)).to.include({ msg: 'gateway listening', port: 3000, level: 30 });
  });

  it('when LOG_FORMAT forces json on a terminal, or pretty elsewhere, then that wins', () => {
    const terminal = sink(true);
    createLogger('info', terminal.stream as never, undefined, 'json').info('hello');
    expect(JSON.parse(terminal.lines[0]!).msg).to.equal('hello');
    const pipe = sink(false);
    createLogger('info', pipe.stream as never, undefined, 'pretty').info('hello');
    expect(pipe.lines[0]).to.match(/ INFO  hello\n$/);
    expect(pipe.lines[0], 'no colour codes where no terminal shows them').not.to.contain('\x1b[');
  });

  it('when a line carries a secret, then pretty output redacts it as JSON does', () => {
    const { lines, stream } = sink(false);
    createLogger('info', stream as never, undefined, 'pretty').warn({ password: 'hunter2hunter2', device: { token: 'sgd_abc' } }, 'login');
    expect(lines[0]).not.to.contain('hunter2');
    expect(lines[0]).not.to.contain('sgd_abc');
    expect(lines[0]).to.contain('password=[redacted]');
  });

  it('when an error is logged, then its message is on the line and its stack indented below', () => {
    const text = formatLine(JSON.stringify({ level: 50, time: 0, msg: 'unclean stop', err: { message: 'boom', stack: 'Error: boom\n    at x' } }));
    expect(text).to.match(/ERROR unclean stop {2}err=boom\n {4}Error: boom\n {8}at x\n$/);
  });

  it('when LOG_FORMAT is neither json nor pretty, then the configuration names it', () => {
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).to.throw(/LOG_FORMAT: must be one of json, pretty, got "xml"/);
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).to.equal('pretty');
    expect(loadConfig({}).logFormat).to.equal(undefined);
  });
});
