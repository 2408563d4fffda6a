// Mocha reporter for `npm run test:all`: the spec reporter's output, then the ten test files that
// took longest (wall time from a file's first hook to its last, hooks included). The whole list
// goes to the file FILE_TIMES names. CI has a time budget; this says where the time goes.
// CommonJS because mocha loads reporters with require().
const { writeFileSync } = require('node:fs');
const { relative } = require('node:path');
const Mocha = require(require.resolve('mocha', { paths: [process.cwd()] }));

const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_RUN_END } = Mocha.Runner.constants;
const SHOWN = 10;

class SpecWithFileTimes extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const startedAt = new Map();
    const spent = new Map();
    // A file's top-level suites (a file may hold several) add up to the file's time.
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent?.root) startedAt.set(suite, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const started = startedAt.get(suite);
      if (started !== undefined) spent.set(suite.file, (spent.get(suite.file) ?? 0) + Date.now() - started);
    });
    runner.once(EVENT_RUN_END, () => {
      const rows = [...spent].sort((a, b) => b[1] - a[1]).map(([file, ms]) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${relative(process.cwd(), file)}`);
      if (process.env.FILE_TIMES) writeFileSync(process.env.FILE_TIMES, `${rows.join('\n')}\n`);
      // After the spec reporter's own epilogue (it prints on the same event, registered first).
      process.nextTick(() => console.log(`\n  slowest test files:\n${rows.slice(0, SHOWN).map((row) => `  ${row}`).join('\n')}\n`));
    });
  }
}

module.exports = SpecWithFileTimes;
