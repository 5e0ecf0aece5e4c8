// The evaluation worker: one self-contained file (dist/worker.js) that runs one instance with limits
// and prints one JSON line. The same file runs locally, on an SSH host, or on a Slurm node.
import { parseArgs } from 'node:util';
import { runSolver } from '../core/eval/runSolver';

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      solver: { type: 'string' },
      cnf: { type: 'string' },
      'proof-dir': { type: 'string' },
      timeout: { type: 'string', default: '60' },
    },
    strict: true,
  });
  if (!values.solver || !values.cnf) {
    process.stderr.write('usage: worker --solver SOLVER_DIR --cnf FILE [--proof-dir DIR] [--timeout S]\n');
    return 2;
  }
  const timeoutS = Number(values.timeout);
  if (!(timeoutS > 0)) {
    process.stderr.write(`worker: --timeout must be a positive number of seconds, got "${values.timeout}"\n`);
    return 2;
  }
  const r = await runSolver({ solverDir: values.solver, cnf: values.cnf, timeoutS, ...(values['proof-dir'] ? { proofDir: values['proof-dir'] } : {}) });
  const crashed = r.signal !== null && !r.timedOut;
  const status = r.timedOut ? 'timeout' : crashed ? 'crash' : r.answer === 'SAT' || r.answer === 'UNSAT' ? 'solved' : 'unknown';
  process.stdout.write(
    JSON.stringify({ instance: values.cnf, answer: r.answer, status, time_s: r.timeS, exit_code: r.exitCode, signal: r.signal }) + '\n',
  );
  return 0;
}

if (require.main === module) void main(process.argv.slice(2)).then((c) => (process.exitCode = c));
