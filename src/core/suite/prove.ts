// Answers proved, never assumed: a generated instance's expected answer comes from a reference solver
// whose evidence was checked here: a SAT model checked clause by clause, or a DRAT proof of UNSAT
// verified by drat-trim. An instance whose answer could not be proved in time is reported, not kept.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCaptured } from '../run/captured';
import { checkModel, ModelBuilder } from '../run/modelCheck';
import { DEFAULT_CHECKER } from '../config/schema';
import { checkProof } from '../run/proof';

/** The programs that prove answers: a solver that writes DRAT proofs with kissat's and CaDiCaL's command line (`-q --no-binary CNF PROOF`), and drat-trim. */
export interface Provers {
  solver: string;
  dratTrim: string;
  /** Per instance, for the solver and again for the proof check. */
  timeoutS: number;
}

/** A proved answer with its evidence, or why there is none. */
export type Proved = { answer: 'SAT' | 'UNSAT'; evidence: string; solveS: number; checkS: number } | { answer: null; why: string };

/** Solves `cnf` with the reference solver and checks its evidence. */
export async function proveAnswer(cnf: string, p: Provers, signal?: AbortSignal): Promise<Proved> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'satlution-prove-'));
  try {
    const proof = path.join(tmp, 'proof.drat');
    // Text DRAT: drat-trim's guess between binary and text can misread a binary proof.
    const run = await runCaptured(p.solver, ['-q', '--no-binary', cnf, proof], { timeoutS: p.timeoutS, keepBytes: 16 << 20, ...(signal ? { signal } : {}) });
    if (run.spawnError) return { answer: null, why: `cannot run the reference solver ${p.solver}: ${run.spawnError}` };
    if (run.timedOut) return { answer: null, why: `the reference solver did not finish within ${p.timeoutS} s` };
    const status = /^s (SATISFIABLE|UNSATISFIABLE)\s*$/m.exec(run.output)?.[1];
    if (status === 'SATISFIABLE') {
      const model = new ModelBuilder();
      for (const m of run.output.matchAll(/^v (.*)$/gm)) for (const tok of m[1]!.trim().split(/\s+/)) model.add(Number(tok));
      const check = await checkModel(cnf, model);
      return check.ok
        ? { answer: 'SAT', evidence: 'model checked', solveS: run.timeS, checkS: check.timeS }
        : { answer: null, why: `the reference solver's model does not check: ${check.detail}` };
    }
    if (status === 'UNSATISFIABLE') {
      const check = await checkProof({
        dratTrim: p.dratTrim,
        cnf,
        proof,
        bounds: { cpuS: p.timeoutS, memMb: DEFAULT_CHECKER.memMb, maxProofMb: 4096 },
        ...(signal ? { signal } : {}),
      });
      return check.ok
        ? { answer: 'UNSAT', evidence: 'DRAT proof verified by drat-trim', solveS: run.timeS, checkS: check.timeS }
        : { answer: null, why: `the reference solver's proof was not verified: ${check.detail}` };
    }
    return { answer: null, why: `the reference solver gave no answer (exit ${run.code}): ${run.output.trim().split('\n').pop()?.slice(0, 200) ?? ''}` };
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}
