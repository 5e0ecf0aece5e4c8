// DRAT proof checking with drat-trim (text and binary DRAT are told apart by drat-trim itself).
// The verdict is drat-trim's exit code; a size cap and a time limit keep a hostile proof cheap.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';

export interface ProofCheck {
  ok: boolean;
  /** `missing`: no proof file or an empty one; `rejected`: the checker said no; `timeout`, `too_large`. */
  outcome: 'verified' | 'missing' | 'rejected' | 'timeout' | 'too_large' | 'error';
  detail: string;
  timeS: number;
  proofMb: number;
}

export interface ProofCheckRequest {
  dratTrim: string;
  cnf: string;
  proof: string;
  timeoutS: number;
  maxProofMb: number;
  signal?: AbortSignal;
}

export async function checkProof(r: ProofCheckRequest): Promise<ProofCheck> {
  const t0 = Date.now();
  const done = (outcome: ProofCheck['outcome'], detail: string, proofMb = 0): ProofCheck => ({
    ok: outcome === 'verified',
    outcome,
    detail,
    proofMb,
    timeS: (Date.now() - t0) / 1000,
  });
  const st = await fs.stat(r.proof).catch(() => undefined);
  if (!st || st.size === 0) return done('missing', `UNSAT claimed without a proof (${st ? 'proof.out is empty' : 'no proof.out written'})`);
  const mb = st.size / 2 ** 20;
  const size = mb >= 1 ? `${mb.toFixed(0)} MB` : `${Math.ceil(st.size / 1024)} KB`;
  if (mb > r.maxProofMb) return done('too_large', `the proof is ${size}, over the ${r.maxProofMb} MB cap`, mb);
  return new Promise<ProofCheck>((resolve) => {
    // -t: drat-trim's own time limit; ours below is the hard one.
    const child = spawn(r.dratTrim, [r.cnf, r.proof, '-t', String(Math.ceil(r.timeoutS))], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let text = '';
    const keep = (d: Buffer) => (text = (text + d.toString('latin1')).slice(-4000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const kill = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, (r.timeoutS + 2) * 1000);
    r.signal?.addEventListener('abort', kill, { once: true });
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve(done('error', `cannot run drat-trim (${r.dratTrim}): ${e.message}`, mb));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      r.signal?.removeEventListener('abort', kill);
      const last = text.replace(/\r/g, '\n').split('\n').map((l) => l.trim()).filter(Boolean);
      const verdict = last.filter((l) => /^s /.test(l)).pop() ?? last.pop() ?? '';
      if (timedOut || /TIMEOUT/.test(text)) resolve(done('timeout', `drat-trim did not finish within ${r.timeoutS} s`, mb));
      else if (code === 0) resolve(done('verified', 'drat-trim: s VERIFIED', mb));
      else resolve(done('rejected', `proof rejected by drat-trim (exit ${code}): ${verdict}`, mb));
    });
  });
}
