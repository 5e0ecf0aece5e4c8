// DRAT proof checking with drat-trim (text and binary DRAT are told apart by drat-trim itself).
// The verdict is drat-trim's exit code; a size cap and a time limit keep a hostile proof cheap.
import { runCaptured } from './captured';
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
  const file = await proofFile(r.proof);
  if (file.missing) return done('missing', `UNSAT claimed without a proof (${file.missing})`);
  const mb = file.bytes / 2 ** 20;
  if (mb > r.maxProofMb) return done('too_large', `the proof is ${proofSize(file.bytes)}, over the ${r.maxProofMb} MB cap`, mb);
  // -t: drat-trim's own time limit; ours (2 s later) is the hard one.
  const run = await runCaptured(r.dratTrim, [r.cnf, r.proof, '-t', String(Math.ceil(r.timeoutS))], {
    timeoutS: r.timeoutS + 2,
    keepBytes: 4000,
    ...(r.signal ? { signal: r.signal } : {}),
  });
  if (run.spawnError) return done('error', `cannot run drat-trim (${r.dratTrim}): ${run.spawnError}`, mb);
  const lines = run.output
    .replace(/\r/g, '\n')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const verdict = lines.filter((l) => /^s /.test(l)).pop() ?? lines.pop() ?? '';
  if (run.timedOut || /TIMEOUT/.test(run.output)) return done('timeout', `drat-trim did not finish within ${r.timeoutS} s`, mb);
  if (run.code === 0) return done('verified', 'drat-trim: s VERIFIED', mb);
  return done('rejected', `proof rejected by drat-trim (exit ${run.code}): ${verdict}`, mb);
}

/**
 * A proof file as written: its size, or why there is none. Only a regular file counts (a link is not
 * followed, a FIFO or device is never opened): a solver's proof.out is untrusted.
 */
export async function proofFile(file: string): Promise<{ bytes: number; missing?: string }> {
  const st = await fs.lstat(file).catch(() => undefined);
  if (!st) return { bytes: 0, missing: 'no proof.out written' };
  if (!st.isFile()) return { bytes: 0, missing: 'proof.out is not a regular file' };
  return st.size === 0 ? { bytes: 0, missing: 'proof.out is empty' } : { bytes: st.size };
}

/** A proof's size in words. */
export const proofSize = (bytes: number): string => (bytes >= 2 ** 20 ? `${(bytes / 2 ** 20).toFixed(0)} MB` : `${Math.ceil(bytes / 1024)} KB`);
