// The one layer for a candidate's files (src/core/workspace/candidateFs.ts, candidateCopy.ts,
// candidateCheck.ts): what a candidate leaves behind — links out and in, FIFOs, huge and sparse files,
// hidden folders — read, written, copied, hashed and checked without being trusted.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { solverIdentity } from '../../src/core/eval/resultsStore';
import { copyCandidate } from '../../src/core/workspace/candidateCopy';
import { inspectCandidate, treeProblem } from '../../src/core/workspace/candidateCheck';
import {
  appendCandidateDoc,
  leadsInside,
  listFiles,
  readCandidateDoc,
  readCandidateText,
  UnsafeCandidateFile,
  walkCandidate,
  writeCandidateDoc,
} from '../../src/core/workspace/candidateFs';
import { tempDir, write } from './helpers';

/** A candidate directory `SATLUTION_1` in a fresh workspace-like folder, with a file outside it. */
function arena(): { ws: string; dir: string; outside: string } {
  const ws = tempDir();
  const dir = path.join(ws, 'SATLUTION_1');
  write(path.join(dir, 'src', 'main.c'), 'int main(void) { return 0; }\n');
  const outside = write(path.join(ws, 'outside', 'secret.txt'), 'the answers\n');
  return { ws, dir, outside };
}

const mkfifo = (p: string) => assert.equal(spawnSync('mkfifo', [p]).status, 0, 'mkfifo');

describe('candidate files: reads', () => {
  it('follows a link only to a place inside, refuses links out, FIFOs and files over the cap, and never blocks', async () => {
    const { dir, outside } = arena();
    fs.symlinkSync('main.c', path.join(dir, 'src', 'alias.c'));
    fs.symlinkSync(outside, path.join(dir, 'out-abs'));
    fs.symlinkSync('../outside/secret.txt', path.join(dir, 'out-rel'));
    fs.mkdirSync(path.join(dir, 'a', 'b'), { recursive: true });
    // up -> ../.. is the candidate itself (inside), but up/../outside/secret.txt climbs out of it.
    fs.symlinkSync('../..', path.join(dir, 'a', 'b', 'up'));
    fs.symlinkSync('a/b/up/../outside/secret.txt', path.join(dir, 'sneaky'));
    mkfifo(path.join(dir, 'pipe'));
    fs.symlinkSync('pipe', path.join(dir, 'to-pipe'));
    write(path.join(dir, 'big'), 'x'.repeat(5000));
    assert.equal(await readCandidateText(dir, 'src/alias.c', { maxBytes: 1000 }), 'int main(void) { return 0; }\n');
    for (const rel of ['out-abs', 'out-rel', 'sneaky'])
      await assert.rejects(
        readCandidateText(dir, rel, { maxBytes: 1000 }),
        (e: Error) => e instanceof UnsafeCandidateFile && /leads outside the candidate/.test(e.message),
        rel,
      );
    for (const rel of ['pipe', 'to-pipe'])
      await assert.rejects(readCandidateText(dir, rel, { maxBytes: 1000 }), /is a FIFO \(named pipe\), not a regular file/, rel);
    await assert.rejects(readCandidateText(dir, 'big', { maxBytes: 1000 }), /has 5000 bytes, more than the 1000 read here/);
    await assert.rejects(readCandidateText(dir, '../outside/secret.txt', { maxBytes: 1000 }), /is outside SATLUTION_1/);
    // A document is never read through a link, not even one inside.
    fs.symlinkSync('src/main.c', path.join(dir, 'HYPOTHESIS.md'));
    await assert.rejects(readCandidateDoc(dir, 'HYPOTHESIS.md'), /HYPOTHESIS.md is a symbolic link \(to src\/main.c\)/);
    assert.equal(await readCandidateDoc(dir, 'RESULTS.md'), undefined);
  });

  it('resolves a dangling link as the kernel would: `..` in its target from the real directory it stands in', async () => {
    const { dir } = arena();
    // `here` is the candidate itself; `gone` dangles to ../nowhere: by name from here/ that is inside, really it is beside the candidate.
    fs.symlinkSync('.', path.join(dir, 'here'));
    fs.symlinkSync('../nowhere', path.join(dir, 'gone'));
    assert.equal(await leadsInside(dir, 'here/gone'), false);
    assert.equal(await leadsInside(dir, 'here/src/main.c'), true);
  });
});

describe('candidate files: documents the harness writes', () => {
  it('replace a link, a FIFO or a directory under the name and never write through it', async () => {
    const { dir, outside } = arena();
    fs.symlinkSync(outside, path.join(dir, 'RESULTS.md'));
    fs.symlinkSync('src/main.c', path.join(dir, 'CHANGELOG.md'));
    mkfifo(path.join(dir, 'HYPOTHESIS.md'));
    fs.mkdirSync(path.join(dir, '.satlution-build.log'));
    write(path.join(dir, '.satlution-build.log', 'x'), 'x');
    await writeCandidateDoc(dir, 'RESULTS.md', '# Results\n');
    await appendCandidateDoc(dir, 'CHANGELOG.md', '- entry\n', '# Changelog\n');
    await writeCandidateDoc(dir, 'HYPOTHESIS.md', '# plan\n');
    await writeCandidateDoc(dir, '.satlution-build.log', 'log\n');
    assert.equal(fs.readFileSync(outside, 'utf8'), 'the answers\n');
    assert.equal(fs.readFileSync(path.join(dir, 'src', 'main.c'), 'utf8'), 'int main(void) { return 0; }\n');
    for (const [name, text] of [
      ['RESULTS.md', '# Results\n'],
      ['CHANGELOG.md', '# Changelog\n- entry\n'],
      ['HYPOTHESIS.md', '# plan\n'],
      ['.satlution-build.log', 'log\n'],
    ] as const) {
      assert.ok(fs.lstatSync(path.join(dir, name)).isFile(), `${name} is a regular file now`);
      assert.equal(fs.readFileSync(path.join(dir, name), 'utf8'), text);
    }
    assert.deepEqual(
      fs.readdirSync(dir).filter((n) => n.endsWith('.tmp')),
      [],
      'no temporary file is left',
    );
  });

  it('refuse a candidate directory that is itself a link', async () => {
    const { ws, outside } = arena();
    fs.symlinkSync(path.dirname(outside), path.join(ws, 'SATLUTION_2'));
    await assert.rejects(writeCandidateDoc(path.join(ws, 'SATLUTION_2'), 'RESULTS.md', 'x'), /is a symbolic link, not a directory/);
    assert.deepEqual(fs.readdirSync(path.dirname(outside)), ['secret.txt']);
  });
});

describe('candidate files: listing and identity', () => {
  it('lists hidden folders, and the identity counts links by target, special files by kind, and streams a huge sparse file', async () => {
    const { dir } = arena();
    write(path.join(dir, '.git', 'hidden.c'), 'int x;\n');
    write(path.join(dir, 'node_modules', 'y.c'), 'int y;\n');
    write(path.join(dir, 'RESULTS.md'), '# r\n');
    assert.deepEqual(await listFiles(dir), ['.git/hidden.c', 'RESULTS.md', 'node_modules/y.c', 'src/main.c']);
    const base = await solverIdentity(dir);
    write(path.join(dir, 'RESULTS.md'), '# other results\n');
    assert.equal(await solverIdentity(dir), base, 'a document that changes does not change the solver');
    write(path.join(dir, '.git', 'hidden.c'), 'int x = 1;\n');
    const hidden = await solverIdentity(dir);
    assert.notEqual(hidden, base, 'a hidden folder is part of the solver');
    fs.symlinkSync('/etc/hostname', path.join(dir, 'link'));
    const linked = await solverIdentity(dir);
    assert.notEqual(linked, hidden);
    fs.unlinkSync(path.join(dir, 'link'));
    fs.symlinkSync('/etc/passwd', path.join(dir, 'link'));
    assert.notEqual(await solverIdentity(dir), linked, 'a link counts by its target');
    fs.unlinkSync(path.join(dir, 'link'));
    mkfifo(path.join(dir, 'pipe'));
    assert.notEqual(await solverIdentity(dir), hidden, 'a FIFO counts, and hashing it does not block');
    fs.unlinkSync(path.join(dir, 'pipe'));
    // Just over 2 GiB, sparse: readFile refuses files that large; the identity streams it.
    const big = path.join(dir, 'huge.bin');
    fs.closeSync(fs.openSync(big, 'w'));
    fs.truncateSync(big, 2 ** 31 + 1);
    assert.match(await solverIdentity(dir), /^[0-9a-f]{64}$/);
  });

  it('refuses to walk more entries than its cap', async () => {
    const { dir } = arena();
    for (let i = 0; i < 30; i++) write(path.join(dir, 'many', `f${i}`), '');
    await assert.rejects(walkCandidate(dir, { maxEntries: 20 }), /holds more than 20 files and directories/);
  });
});

describe('candidate files: copies', () => {
  it('keeps links inside as links, makes absolute ones relative, keeps modes and times, and writes nothing through anything', async () => {
    const { ws, dir } = arena();
    write(path.join(dir, 'makefile'), 'all:\n');
    fs.symlinkSync(path.join(dir, 'makefile'), path.join(dir, 'src', 'makefile'));
    fs.symlinkSync('../makefile', path.join(dir, 'src', 'relative'));
    write(path.join(dir, 'bin', 'run'), '#!/bin/sh\n');
    fs.chmodSync(path.join(dir, 'bin', 'run'), 0o755);
    const old = new Date('2020-01-02T03:04:05Z');
    fs.utimesSync(path.join(dir, 'src', 'main.c'), old, old);
    const copy = path.join(ws, 'SATLUTION_2');
    const r = await copyCandidate(dir, copy);
    assert.equal(r.relinked, 1);
    assert.equal(fs.readlinkSync(path.join(copy, 'src', 'makefile')), '../makefile');
    assert.equal(fs.readlinkSync(path.join(copy, 'src', 'relative')), '../makefile');
    assert.equal(fs.statSync(path.join(copy, 'bin', 'run')).mode & 0o777, 0o755);
    assert.equal(fs.statSync(path.join(copy, 'src', 'main.c')).mtimeMs, old.getTime());
    assert.equal(fs.readFileSync(path.join(copy, 'src', 'makefile'), 'utf8'), 'all:\n');
    await assert.rejects(copyCandidate(dir, copy), /EEXIST/, 'a copy never lands in an existing directory');
  });

  it('re-points links of a workspace that was moved, and refuses links out and special files', async () => {
    const { ws, dir, outside } = arena();
    write(path.join(dir, 'makefile'), 'all:\n');
    // Written by configure in the workspace's old place.
    fs.symlinkSync('/old/place/SATLUTION_1/makefile', path.join(dir, 'src', 'makefile'));
    const moved = path.join(ws, 'SATLUTION_2');
    await copyCandidate(dir, moved);
    assert.equal(fs.readlinkSync(path.join(moved, 'src', 'makefile')), '../makefile');
    fs.symlinkSync(outside, path.join(dir, 'leak'));
    await assert.rejects(copyCandidate(dir, path.join(ws, 'SATLUTION_3')), /leak links outside SATLUTION_1 \(-> .*secret.txt\)/);
    fs.unlinkSync(path.join(dir, 'leak'));
    fs.symlinkSync('../SATLUTION_0/src/main.c', path.join(dir, 'sibling'));
    await assert.rejects(copyCandidate(dir, path.join(ws, 'SATLUTION_4')), /sibling links outside/);
    fs.unlinkSync(path.join(dir, 'sibling'));
    mkfifo(path.join(dir, 'pipe'));
    await assert.rejects(copyCandidate(dir, path.join(ws, 'SATLUTION_5')), /pipe is a FIFO/);
    assert.equal(fs.readFileSync(outside, 'utf8'), 'the answers\n');
  });
});

describe('candidate files: the check after a build or a coding step', () => {
  it('names links out, special files and a tree over its disk limit (apparent size: a sparse file counts whole)', async () => {
    const { dir, outside } = arena();
    fs.symlinkSync('main.c', path.join(dir, 'src', 'ok'));
    assert.deepEqual((await inspectCandidate(dir, { maxBytes: 2 ** 20 })).problems, []);
    fs.symlinkSync(outside, path.join(dir, 'leak'));
    mkfifo(path.join(dir, 'pipe'));
    const sparse = path.join(dir, 'sparse');
    fs.closeSync(fs.openSync(sparse, 'w'));
    fs.truncateSync(sparse, 5 * 2 ** 20);
    const i = await inspectCandidate(dir, { maxBytes: 2 ** 20 });
    assert.equal(i.problems.length, 3, i.problems.join('\n'));
    assert.match(i.problems[0]!, /holds 5 MB, over its disk limit of 1 MB \(evaluation.disk_max_mb\)/);
    assert.ok(i.problems.includes(`leak links outside the candidate (-> ${outside})`));
    assert.ok(i.problems.includes('pipe is a FIFO (named pipe)'));
    assert.match(treeProblem('the build', i)!, /^the build left what the harness refuses: /);
  });
});
