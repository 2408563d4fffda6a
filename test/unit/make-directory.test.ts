// makeDirectory (src/common/make-directory.ts): makes a path and its missing parents with the mode
// asked for, accepts one already there, and fails with the system's error where a directory can
// never be made (under /proc, through a file) instead of looping as Node's recursive mkdir does.
import { expect } from 'chai';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirectory, makeDirectoryAsync } from '../../src/common/make-directory.ts';

describe('makeDirectory', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'make-directory-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  for (const [name, make] of [
    ['makeDirectory', async (path: string, mode?: number) => makeDirectory(path, mode)],
    ['makeDirectoryAsync', makeDirectoryAsync],
  ] as const) {
    describe(name, () => {
      it('makes every missing part, each with the mode asked for', async () => {
        const deep = join(root, 'a', 'b', 'c');
        await make(deep, 0o700);
        for (const part of [join(root, 'a'), join(root, 'a', 'b'), deep]) {
          const stats = statSync(part);
          expect(stats.isDirectory(), part).to.equal(true);
          expect(stats.mode & 0o777, part).to.equal(0o700);
        }
      });

      it('accepts a directory that is already there', async () => {
        await make(root);
        await make(join(root, 'x'));
        await make(join(root, 'x'));
        expect(statSync(join(root, 'x')).isDirectory()).to.equal(true);
      });

      it('fails with ENOTDIR for a path through a file', async () => {
        writeFileSync(join(root, 'file'), '');
        const error = await make(join(root, 'file', 'below')).then(() => undefined, (caught: NodeJS.ErrnoException) => caught);
        expect(error?.code).to.equal('ENOTDIR');
      });

      it('fails at once under /proc, where nothing can be made', async function () {
        if (process.platform !== 'linux') this.skip();
        const error = await make('/proc/sms-gateway-test/data').then(() => undefined, (caught: NodeJS.ErrnoException) => caught);
        expect(error?.code).to.equal('ENOENT');
      });
    });
  }
});
