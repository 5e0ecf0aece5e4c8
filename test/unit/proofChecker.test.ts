// The proof checker's verdict (run/proof.ts) attacked through the proof, with the real drat-trim: a
// proof cannot write the verdict (a comment line drat-trim echoes), cannot make a check that did not
// finish neutral (too slow, out of memory: the answer counts as unsolved), and drat-trim's exit 0 on a
// memory-out is not a verification. The bounds scale with the solving time.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pigeonhole, uniform3Sat } from '../../src/core/instances/generators';
import { judgeKeptProof } from '../../src/core/run/keptProof';
import { checkerBounds, checkerLimits, checkProof, readVerdict, type CheckerBounds } from '../../src/core/run/proof';
import type { InstanceResult } from '../../src/core/run/result';
import { solvedRun, tempDir } from './helpers';

const DRAT_TRIM = process.env.SATLUTION_DRAT_TRIM;

/** Ample bounds for a small formula. */
const AMPLE: CheckerBounds = { cpuS: 20, memMb: 2048, maxProofMb: 512 };

/** An UNSAT answer of a run that took `s` seconds, as a perf run leaves it before its proof is checked. */
const unsatRun = (s: number): InstanceResult => solvedRun('f.cnf', s);

describe("the proof checker's verdict: only drat-trim's own status, within the harness's bounds", () => {
  it('reads the harness first (clock, signal, exit status), then exactly one status line, `s VERIFIED`, with no memory-out', () => {
    const v = (code: number | null, output: string, o: { signal?: NodeJS.Signals; timedOut?: boolean } = {}) =>
      readVerdict({ code, output, signal: o.signal ?? null, timedOut: o.timedOut ?? false }).outcome;
    assert.equal(v(0, 'c parsing\r\ns VERIFIED\r\nc verification time: 0.1 seconds\n'), 'verified');
    assert.equal(v(0, 'c x\ns VERIFIED\nc MEMOUT: reallocation of clause database failed\n'), 'memout', 'a memory-out after any status');
    assert.equal(v(0, 'c MEMOUT: reallocation of clause database failed\n'), 'memout', 'drat-trim exits 0 on a memory-out');
    assert.equal(v(1, 's MEMORY ALLOCATION ERROR\n'), 'memout');
    assert.equal(v(0, 's VERIFIED\ns VERIFIED\n'), 'rejected', 'two status lines: one was not the checker');
    assert.equal(v(0, 'c illegal literal 99 due to max var 30\n'), 'rejected', 'exit 0 without a status line');
    assert.equal(v(0, 's DERIVATION\n'), 'rejected', 'no refutation');
    assert.equal(v(0, 's TIMEOUT\n'), 'rejected', "drat-trim's own timer is a word, not the harness's clock");
    assert.equal(v(1, 's NOT VERIFIED\n'), 'rejected');
    assert.equal(v(80, 'c ERROR: comment longer than 65536 characters: c x\rs VERIFIED x\rc MEMOUT\n'), 'rejected', "the proof's own words, echoed");
    assert.equal(v(null, '', { timedOut: true }), 'timeout', 'our clock');
    assert.equal(v(null, 's VERIFIED\n', { signal: 'SIGXCPU' }), 'timeout', 'the CPU limit');
    assert.equal(v(null, '', { signal: 'SIGKILL' }), 'timeout');
    assert.equal(v(null, '', { signal: 'SIGSEGV' }), 'crashed');
  });

  it('bounds a check by its solving time: CPU, and the proof it reads, at least the floors and at most the caps', () => {
    const l = checkerLimits(undefined, 300, 2048);
    assert.deepEqual(checkerBounds(l, 0.3), { cpuS: 10, memMb: 8192, maxProofMb: 64 });
    assert.deepEqual(checkerBounds(l, 5), { cpuS: 50, memMb: 8192, maxProofMb: 320 });
    assert.deepEqual(checkerBounds(l, 100), { cpuS: 300, memMb: 8192, maxProofMb: 2048 });
    assert.deepEqual(checkerBounds(checkerLimits({ timeFactor: 2, timeMinS: 1, memMb: 100, proofMbPerS: 1, proofMinMb: 1 }, 30, 10), 4), {
      cpuS: 8,
      memMb: 100,
      maxProofMb: 4,
    });
  });

  it('an answer whose proof was not verified counts as unsolved, whatever stopped the check; a rejected proof is a lie', () => {
    const pc = (outcome: 'timeout' | 'memout' | 'too_large' | 'crashed' | 'missing' | 'rejected' | 'verified') => ({
      ok: outcome === 'verified',
      outcome,
      detail: outcome,
      timeS: 1,
      proofMb: 1,
    });
    for (const o of ['timeout', 'memout', 'too_large', 'crashed', 'missing'] as const) {
      const r = judgeKeptProof(unsatRun(0.2), pc(o));
      assert.deepEqual([r.status, r.check.kind, r.check.ok], ['unknown', 'drat', null], o);
      assert.match(r.detail, /not proved, counted as unsolved$/, o);
    }
    assert.equal(judgeKeptProof(unsatRun(0.2), pc('rejected')).status, 'invalid_proof');
    assert.deepEqual([judgeKeptProof(unsatRun(0.2), pc('verified')).status, judgeKeptProof(unsatRun(0.2), pc('verified')).check.ok], ['solved', true]);
  });

  describe('with the real drat-trim', function () {
    let dir: string;
    let php: string;
    before(function () {
      if (!DRAT_TRIM || spawnSync('cadical', ['--version']).status !== 0) {
        if (process.env.CI) throw new Error('cadical and drat-trim are required (scripts/setup-sat-tools.sh)');
        this.skip();
      }
      dir = tempDir();
      php = path.join(dir, 'php.cnf');
      fs.writeFileSync(php, pigeonhole(6, 5));
    });
    const check = (cnf: string, proof: string, bounds: CheckerBounds = AMPLE) => checkProof({ dratTrim: DRAT_TRIM!, cnf, proof, bounds });

    it("verifies cadical's proof of an UNSAT formula", async () => {
      const proof = path.join(dir, 'php.proof');
      assert.equal(spawnSync('cadical', ['-q', php, proof]).status, 20);
      const pc = await check(php, proof);
      assert.deepEqual([pc.outcome, pc.ok], ['verified', true], pc.detail);
    });

    it('a comment line over 64 KiB that says "s TIMEOUT" (or "s VERIFIED") is a rejected proof, not a checker timeout', async () => {
      for (const word of ['s TIMEOUT', '\rs VERIFIED\r', 'MEMOUT']) {
        const proof = path.join(dir, 'comment.drat');
        fs.writeFileSync(proof, `c ${'x'.repeat(1000)} ${word} ${'x'.repeat(66000)}\n0\n`);
        const pc = await check(php, proof);
        assert.equal(pc.outcome, 'rejected', `${JSON.stringify(word)}: ${pc.detail}`);
        assert.match(pc.detail, /exit 80/);
        assert.ok(pc.timeS < 20, 'it ended at once');
        assert.equal(judgeKeptProof(unsatRun(0.1), pc).status, 'invalid_proof', 'a lie, which fails the candidate');
      }
    });

    it('a junk proof that makes drat-trim run out of its memory (MEMOUT, exit 0) is not verified: the answer counts as unsolved', async () => {
      // 12 MB of 30-literal junk lemmas: drat-trim's clause database outgrows 60 MB of address space.
      const proof = path.join(dir, 'junk.drat');
      let seed = 1;
      const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 30;
      const lines: string[] = [];
      for (let i = 0; i < 120000; i++) lines.push(`${Array.from({ length: 30 }, () => (rnd() < 15 ? -1 : 1) * (1 + Math.floor(rnd()))).join(' ')} 0`);
      fs.writeFileSync(proof, lines.join('\n') + '\n');
      // Short of memory, drat-trim says MEMOUT and exits 0 where its allocation fails cleanly, or dies of
      // SIGSEGV where it does not; with enough, it rejects the junk. Never verified.
      const outcomes: string[] = [];
      for (const memMb of [50, 60, 70, 80, 90, 100]) {
        const low = await check(php, proof, { cpuS: 20, memMb, maxProofMb: 512 });
        outcomes.push(low.outcome);
        assert.ok(['memout', 'crashed', 'rejected'].includes(low.outcome), `${memMb} MB: ${low.outcome}: ${low.detail}`);
        assert.equal(low.ok, false);
        if (low.outcome !== 'rejected') assert.equal(judgeKeptProof(unsatRun(0.1), low).status, 'unknown');
      }
      assert.ok(outcomes.includes('memout'), `the exit-0 memory-out was seen: ${outcomes.join(', ')}`);
      // With room, drat-trim finishes and rejects it.
      const room = await check(php, proof);
      assert.equal(room.outcome, 'rejected', room.detail);
    });

    it('a proof too slow to check within its CPU bound is not verified (the kernel stops drat-trim), nor one larger than its run could justify', async function () {
      this.timeout(240000);
      // Random 3-SAT near the threshold: seconds for cadical, and drat-trim needs seconds of CPU for its proof.
      const cnf = path.join(dir, 'hard.cnf');
      fs.writeFileSync(cnf, uniform3Sat(280, 4.6, 7));
      const proof = path.join(dir, 'hard.proof');
      assert.equal(spawnSync('cadical', ['-q', cnf, proof]).status, 20);
      const slow = await check(cnf, proof, { cpuS: 1, memMb: 2048, maxProofMb: 512 });
      assert.equal(slow.outcome, 'timeout', slow.detail);
      assert.match(slow.detail, /within its 1 s of CPU time/);
      assert.equal(judgeKeptProof(unsatRun(0.3), slow).status, 'unknown');
      // Its run "took" 0.1 s: at 64 MB per second (at least 1 MB here), a proof of several MB is more than it could write.
      const big = await check(
        cnf,
        proof,
        checkerBounds(checkerLimits({ timeFactor: 10, timeMinS: 10, memMb: 2048, proofMbPerS: 64, proofMinMb: 1 }, 60, 2048), 0.1),
      );
      assert.equal(big.outcome, 'too_large', big.detail);
      assert.ok(big.timeS < 1, 'never read');
    });
  });
});
