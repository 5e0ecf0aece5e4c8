// The evaluation worker: one self-contained file (dist/worker.js) that runs one instance with its
// limits and checks and prints one JSON line (an InstanceResult). The same file runs locally, on an
// SSH host, or on a Slurm node: it needs only Node, the solver directory, and drat-trim for proofs.
import { WORKER_EXIT } from '../core/runners/remoteWorker';
import { sweepLeftovers } from '../core/run/sweep';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { readDimacs } from '../core/instances/dimacs';
import { IsolationUnavailable, requireIsolation } from '../core/isolation/probe';
import type { IsolationSettings } from '../core/isolation/settings';
import { DEFAULT_DISK_MAX_MB, DEFAULT_PROCESSES_MAX } from '../core/config/schema';
import { buildSolver } from '../core/run/build';
import { EvaluationAborted, runInstance } from '../core/run/runInstance';
import { writeCandidateDoc } from '../core/workspace/candidateFs';

const USAGE =
  'usage: worker --solver SOLVER_DIR --cnf FILE [--timeout S] [--mem MB] [--proofs --drat-trim PATH [--max-proof-mb MB] [--checker-timeout S]] [--max-output-mb MB] [--expected SAT|UNSAT] [--name NAME] [--sandbox on|off] [--disk-mb MB] [--processes N]\n' +
  '       worker --build SOLVER_DIR [--timeout S] [--sandbox on|off] [--build-network] [--disk-mb MB] [--processes N]';

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
      sandbox: { type: 'string', default: 'on' },
      build: { type: 'string' },
      'build-network': { type: 'boolean', default: false },
      // evaluation.disk_max_mb and evaluation.processes_max, from the runner's command line.
      'disk-mb': { type: 'string', default: String(DEFAULT_DISK_MAX_MB) },
      processes: { type: 'string', default: String(DEFAULT_PROCESSES_MAX) },
    },
    strict: true,
  });
  if (values.sandbox !== 'on' && values.sandbox !== 'off') {
    process.stderr.write(`worker: --sandbox must be on or off, got "${values.sandbox}"\n`);
    return 2;
  }
  const limits = { diskMaxMb: Number(values['disk-mb']), processesMax: Number(values.processes) };
  const badLimits = [
    !(limits.diskMaxMb > 0) ? `--disk-mb must be a positive number of MB, got "${values['disk-mb']}"` : '',
    !(Number.isInteger(limits.processesMax) && limits.processesMax > 0) ? `--processes must be a positive whole number, got "${values.processes}"` : '',
  ].filter(Boolean);
  if (badLimits.length) {
    process.stderr.write(`worker: ${badLimits.join('\nworker: ')}\n`);
    return 2;
  }
  const isolation: IsolationSettings = { mode: values.sandbox === 'on' ? 'bwrap' : 'off', buildNetwork: values['build-network'], readOnly: [], limits };
  try {
    await requireIsolation(isolation);
  } catch (e) {
    if (!(e instanceof IsolationUnavailable)) throw e;
    process.stderr.write(`worker: ${e.message}\n`);
    return WORKER_EXIT.noIsolation;
  }
  // What a worker killed with SIGKILL on this host left: its solvers, cgroups and run directories.
  await sweepLeftovers();
  if (values.build !== undefined) return build(path.resolve(values.build), Number(values.timeout), isolation);
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
      isolation,
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

/** `bash starexec_build` in its sandbox; the build log goes to .satlution-build.log beside it, its end to stderr on failure. */
async function build(dir: string, timeoutS: number, isolation: IsolationSettings): Promise<number> {
  if (!(timeoutS > 0)) {
    process.stderr.write('worker: --timeout must be a positive number of seconds\n');
    return 2;
  }
  const b = await buildSolver(dir, timeoutS, undefined, isolation);
  // Replaces whatever the build left under the name (a link to ~/.ssh/authorized_keys, say), never writes through it.
  await writeCandidateDoc(dir, '.satlution-build.log', b.log).catch(() => undefined);
  if (b.ok) return 0;
  process.stderr.write(`${b.log.trim().split('\n').slice(-25).join('\n')}\n${b.detail}\n`);
  return /did not finish within/.test(b.detail) ? WORKER_EXIT.buildTimeout : WORKER_EXIT.buildFailed;
}

if (require.main === module) void main(process.argv.slice(2)).then((c) => (process.exitCode = c));
