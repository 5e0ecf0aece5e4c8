// The ssh control sockets live in a directory only this user can use; one that another user owns,
// that others can write, or that is a link is refused (a fake master socket there would see and
// answer every command). The real sshd tests (sshRunner.test.ts) use the private directory.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { controlDir, sshBaseArgs } from '../../src/core/runners/ssh';
import { tempDir } from './helpers';

const uid = process.getuid!();

describe('ssh: the control socket directory', () => {
  it('is made private to this user and used for ControlPath', () => {
    const base = tempDir();
    const dir = controlDir(base);
    assert.equal(dir, path.join(base, `satlution-ssh-${uid}`));
    const st = fs.statSync(dir);
    assert.equal(st.mode & 0o777, 0o700);
    assert.equal(controlDir(base), dir, 'an existing private directory is used as it is');
    const args = sshBaseArgs({ host: 'h' });
    const cp = args.find((a) => a.startsWith('ControlPath='))!;
    assert.match(cp, /^ControlPath=.*satlution-ssh-\d+\/%C$/);
    assert.equal(fs.statSync(path.dirname(cp.slice('ControlPath='.length))).mode & 0o077, 0);
  });

  it('refuses a directory others can write, a link, or one another user owns', function () {
    const base = tempDir();
    const dir = path.join(base, `satlution-ssh-${uid}`);
    fs.mkdirSync(dir, { mode: 0o777 });
    fs.chmodSync(dir, 0o777);
    assert.throws(() => controlDir(base), /refusing the ssh control directory .*others can use it \(mode 777\)/);
    fs.rmdirSync(dir);
    fs.symlinkSync(tempDir(), dir);
    assert.throws(() => controlDir(base), /refusing the ssh control directory .*not a directory \(a link\?\)/);
    fs.unlinkSync(dir);
    if (uid !== 0) return this.skip(); // only root can hand a directory to another user
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chownSync(dir, 4242, 4242);
    assert.throws(() => controlDir(base), /refusing the ssh control directory .*belongs to another user \(uid 4242\)/);
  });
});
