import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { GbdHasher, gbdHashOfFile } from '../../src/core/instances/gbdHash';
import { tempDir } from './helpers';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const gbd = (text: string, chunk = 3) => {
  const h = new GbdHasher();
  const b = Buffer.from(text);
  for (let i = 0; i < b.length; i += chunk) h.update(b.subarray(i, i + chunk));
  return h.digest();
};

describe('the GBD hash (instance names of the Global Benchmark Database)', () => {
  it('is the MD5 of the clauses with comments, header and blank runs normalised away, and a final 0 added when missing', () => {
    const canonical = md5('1 -2 0 2 3 0');
    assert.equal(gbd('c x\np cnf 3 2\n1 -2 0\n  2   3 0\n'), canonical);
    assert.equal(gbd('p cnf 3 2\n1 -2 0 2 3\n'), canonical, 'no final 0: added');
    assert.equal(gbd('p cnf 3 2\r\n1\t-2 0\r\n2 3 0'), canonical, 'CR LF, tabs, no final newline');
    assert.equal(gbd('c 5 5 5\np cnf 3 2\nc 7 0\n1 -2 0\n2 3 0\n', 1), canonical, 'numbers in comments are not hashed');
    assert.equal(gbd('p cnf 2 1\n10 -20 0\n'), md5('10 -20 0'), 'a 0 inside a literal is no clause end');
    assert.equal(gbd('p cnf 2 1\n10 -20\n'), md5('10 -20 0'));
    assert.equal(gbd(''), md5(''), 'nothing: nothing added');
    assert.notEqual(gbd('p cnf 3 2\n1 -2 0\n2 3 0\n'), gbd('p cnf 3 2\n1 2 0\n2 3 0\n'));
  });

  it('reads .cnf, .cnf.gz and .cnf.xz files alike (by content, not by name)', async () => {
    const d = tempDir('gbd-');
    const text = 'c made here\np cnf 3 2\n1 -2 0\n2 3 0\n';
    fs.writeFileSync(path.join(d, 'a.cnf'), text);
    fs.writeFileSync(path.join(d, 'a.cnf.gz'), zlib.gzipSync(text));
    execFileSync('xz', ['-k', '-z', path.join(d, 'a.cnf')]);
    fs.renameSync(path.join(d, 'a.cnf.xz'), path.join(d, 'b.cnf.xz'));
    for (const f of ['a.cnf', 'a.cnf.gz', 'b.cnf.xz']) assert.equal(await gbdHashOfFile(path.join(d, f)), md5('1 -2 0 2 3 0'), f);
    fs.writeFileSync(path.join(d, 'broken.cnf.xz'), Buffer.concat([fs.readFileSync(path.join(d, 'b.cnf.xz')).subarray(0, 20)]));
    await assert.rejects(gbdHashOfFile(path.join(d, 'broken.cnf.xz')), /xz could not decompress/);
  });
});
