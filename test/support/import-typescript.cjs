// Loaded by mocha before anything else (.mocharc.json). Mocha require()s a test file first when
// Node can require ES modules, and Node would load a .ts file that happens to parse as JavaScript
// without compiling it: `new Promise<string>(...)` then reads as two comparisons. Refusing
// require() of TypeScript makes mocha import() every test file, through tsx's ES module hook, so
// that tests load the sources as the compiled gateway runs (one copy of each module, whether a
// file is imported at the top or with import()).
const Module = require('node:module');

Module._extensions['.ts'] = (module, filename) => {
  throw new Error(`${filename} is TypeScript: imported through tsx, not required`);
};
