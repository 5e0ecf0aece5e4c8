// The evaluation worker: one self-contained file (dist/worker.js) that runs one instance with its
// limits and checks and prints one JSON line (an InstanceResult). The same file runs locally, on an
// SSH host, or on a Slurm node: it needs only Node, the solver directory, and drat-trim for proofs.
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { readDimacs } from '../core/instances/dimacs';
import { EvaluationAborted, runInstance } from '../core/run/runInstance';

const USAGE = 'usage: worker --solver SOLVER_DIR --cnf FILE [--timeout S] [--mem MB] [--proofs --drat-trim PATH [--max-proof-mb MB] [--checker-timeout S]] [--max-output-mb MB] [--expected SAT|UNSAT] [--name NAME]';

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      solver: { type: 'string' },
      cnf: { type: 'string' },
      name: { type: 'string' },
      timeout: { type: 'string', default: '60' },
      mem: { type: 'string', default: '4096' },
      proofs: { type: 'boolean', default: false },
      'drat-trim': { type: 'string' },
      'max-proof-mb': { type: 'string', default: '4096' },
      'max-output-mb': { type: 'string', default: '256' },
      'checker-timeout': { type: 'string' },
      expected: { type: 'string' },
    },
    strict: true,
  });
  const timeoutS = Number(values.timeout);
  const memMb = Number(values.mem);
  const maxProofMb = Number(values['max-proof-mb']);
  const maxOutputMb = Number(values['max-output-mb']);
  const checkerTimeoutS = values['checker-timeout'] === undefined ? 3 * timeoutS : Number(values['checker-timeout']);
  const expected = values.expected === 'SAT' || values.expected === 'UNSAT' ? values.expected : null;
  const problems = [
    !values.solver || !values.cnf ? USAGE : '',
    !(timeoutS > 0) ? `--timeout must be a positive number of seconds, got "${values.timeout}"` : '',
    !(memMb > 0) ? `--mem must be a positive number of MB, got "${values.mem}"` : '',
    !(maxProofMb > 0) ? `--max-proof-mb must be a positive number of MB, got "${values['max-proof-mb']}"` : '',
    !(maxOutputMb > 0) ? `--max-output-mb must be a positive number of MB, got "${values['max-output-mb']}"` : '',
    !(checkerTimeoutS > 0) ? `--checker-timeout must be a positive number of seconds, got "${values['checker-timeout']}"` : '',
    values.expected !== undefined && !expected ? `--expected must be SAT or UNSAT, got "${values.expected}"` : '',
    values.proofs && !values['drat-trim'] ? '--proofs needs --drat-trim PATH' : '',
  ].filter(Boolean);
  if (problems.length) {
    process.stderr.write(`worker: ${problems.join('\nworker: ')}\n`);
    return 2;
  }
  let vars: number;
  let emptyClause: boolean;
  try {
    ({ vars, emptyClause } = await readDimacs(values.cnf!, { clause() {} }));
  } catch (e) {
    process.stderr.write(`worker: ${(e as Error).message}\n`);
    return 2;
  }
  // A runner stops a remote run with SIGTERM: end the solver's whole process group, print nothing.
  const stop = new AbortController();
  const onStop = () => stop.abort();
  process.once('SIGTERM', onStop);
  process.once('SIGINT', onStop);
  let r: Awaited<ReturnType<typeof runInstance>>;
  try {
    r = await runInstance({
      signal: stop.signal,
      solverDir: path.resolve(values.solver!),
      name: values.name ?? path.basename(values.cnf!),
      cnf: path.resolve(values.cnf!),
      vars,
      emptyClause,
      family: null,
      expected,
      expectedFrom: expected ? 'meta' : 'none',
      timeoutS,
      memMb,
      checkProofs: values.proofs,
      ...(values['drat-trim'] ? { dratTrim: values['drat-trim'] } : {}),
      maxProofMb,
      checkerTimeoutS,
      maxOutputMb,
    });
  } catch (e) {
    if (e instanceof EvaluationAborted || stop.signal.aborted) {
      process.stderr.write('worker: stopped\n');
      return 143;
    }
    throw e;
  } finally {
    process.off('SIGTERM', onStop);
    process.off('SIGINT', onStop);
  }
  process.stdout.write(JSON.stringify(r) + '\n');
  return 0;
}

if (require.main === module) void main(process.argv.slice(2)).then((c) => (process.exitCode = c));
