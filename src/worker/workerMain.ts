// The evaluation worker: one self-contained file (dist/worker.js) that runs one instance with its
// limits and checks and prints one JSON line (an InstanceResult). The same file runs locally, on an
// SSH host, or on a Slurm node: it needs only Node, the solver directory, and drat-trim for proofs.
import { cpuOfSlot, CPU_SLOT_ENV, WORKER_EXIT } from '../core/runners/remoteWorker';
import { sweepLeftovers } from '../core/run/sweep';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { readDimacs } from '../core/instances/dimacs';
import { IsolationUnavailable, requireIsolation } from '../core/isolation/probe';
import type { IsolationSettings } from '../core/isolation/settings';
import { DEFAULT_DISK_MAX_MB, DEFAULT_PROCESSES_MAX, DEFAULT_PROOF_MAX_MB } from '../core/config/schema';
import { buildSolver } from '../core/run/buildSolver';
import { EvaluationAborted, runInstance } from '../core/run/runInstance';
import { writeCandidateDoc } from '../core/workspace/candidateFs';
import { checkKeptProof, PROOFS_DIR, sweepHolds } from '../core/run/keptProof';
import { InstanceResult } from '../core/run/result';
import { CheckerPolicy } from '../core/run/proof';
import { measurementHere } from '../core/run/measurement';

const USAGE =
  'usage: worker --solver SOLVER_DIR --cnf FILE [--timeout S] [--mem MB] [--max-proof-mb MB] [--proofs --drat-trim PATH [--checker-timeout S] [--checker JSON] | --require-proofs [--keep-proof FILE]] [--max-output-mb MB] [--expected SAT|UNSAT [--claim]] [--name NAME] [--sandbox on|off] [--disk-mb MB] [--processes N]\n' +
  '       worker --check-kept PROOF --cnf FILE --drat-trim PATH --result JSON [--checker-timeout S] [--checker JSON] [--max-proof-mb MB]\n' +
  '       worker --build SOLVER_DIR [--timeout S] [--sandbox on|off] [--build-network] [--disk-mb MB] [--processes N]\n' +
  '       worker --measurement';

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
      // perf: an UNSAT answer needs the proof its run wrote; --keep-proof moves it there for the audits.
      'require-proofs': { type: 'boolean', default: false },
      'keep-proof': { type: 'string' },
      // Checks a proof kept by an earlier run (--keep-proof) against its instance and prints that run's result as the proof judges it.
      'check-kept': { type: 'string' },
      result: { type: 'string' },
      'drat-trim': { type: 'string' },
      'max-proof-mb': { type: 'string', default: String(DEFAULT_PROOF_MAX_MB) },
      'max-output-mb': { type: 'string', default: '256' },
      'checker-timeout': { type: 'string' },
      // evaluation.checker as JSON (run/proof.ts CheckerPolicy); default DEFAULT_CHECKER.
      checker: { type: 'string' },
      expected: { type: 'string' },
      claim: { type: 'boolean', default: false },
      sandbox: { type: 'string', default: 'on' },
      build: { type: 'string' },
      'build-network': { type: 'boolean', default: false },
      // evaluation.disk_max_mb and evaluation.processes_max, from the runner's command line.
      'disk-mb': { type: 'string', default: String(DEFAULT_DISK_MAX_MB) },
      processes: { type: 'string', default: String(DEFAULT_PROCESSES_MAX) },
      // How this host measures CPU time and bounds memory and processes (one JSON line: run/measurement.ts).
      measurement: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.sandbox !== 'on' && values.sandbox !== 'off') {
    process.stderr.write(`worker: --sandbox must be on or off, got "${values.sandbox}"\n`);
    return 2;
  }
  if (values['check-kept'] !== undefined) return checkKept(values);
  if (values.measurement) {
    process.stdout.write(JSON.stringify(await measurementHere()) + '\n');
    return 0;
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
  // What a worker killed with SIGKILL on this host left: its solvers, cgroups and run directories;
  // and proofs kept in this workdir for an evaluator that died (by age: its liveness is not known here).
  await sweepLeftovers();
  await sweepHolds(path.join(process.cwd(), PROOFS_DIR), { owners: false });
  if (values.build !== undefined) return build(path.resolve(values.build), Number(values.timeout), isolation);
  const timeoutS = Number(values.timeout);
  const memMb = Number(values.mem);
  const maxProofMb = Number(values['max-proof-mb']);
  const maxOutputMb = Number(values['max-output-mb']);
  const checkerTimeoutS = values['checker-timeout'] === undefined ? 3 * timeoutS : Number(values['checker-timeout']);
  const checker = checkerFlag(values.checker);
  const expected = values.expected === 'SAT' || values.expected === 'UNSAT' ? values.expected : null;
  const problems = [
    !values.solver || !values.cnf ? USAGE : '',
    !(timeoutS > 0) ? `--timeout must be a positive number of seconds, got "${values.timeout}"` : '',
    !(memMb > 0) ? `--mem must be a positive number of MB, got "${values.mem}"` : '',
    !(maxProofMb > 0) ? `--max-proof-mb must be a positive number of MB, got "${values['max-proof-mb']}"` : '',
    !(maxOutputMb > 0) ? `--max-output-mb must be a positive number of MB, got "${values['max-output-mb']}"` : '',
    !(checkerTimeoutS > 0) ? `--checker-timeout must be a positive number of seconds, got "${values['checker-timeout']}"` : '',
    checker === null ? `--checker must be evaluation.checker as JSON, got "${values.checker}"` : '',
    values.expected !== undefined && !expected ? `--expected must be SAT or UNSAT, got "${values.expected}"` : '',
    values.proofs && !values['drat-trim'] ? '--proofs needs --drat-trim PATH' : '',
    values['keep-proof'] !== undefined && !values['require-proofs'] ? '--keep-proof needs --require-proofs' : '',
  ].filter(Boolean);
  if (problems.length) {
    process.stderr.write(`worker: ${problems.join('\nworker: ')}\n`);
    return 2;
  }
  let vars: number;
  let emptyClause: boolean;
  try {
    ({ vars, emptyClause } = await readDimacs(values.cnf!));
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
      expectedFrom: expected ? (values.claim ? 'claim' : 'meta') : 'none',
      timeoutS,
      memMb,
      checkProofs: values.proofs,
      ...(values['require-proofs'] ? { requireProofs: { hold: null } } : {}),
      ...(values['keep-proof'] !== undefined ? { keepAs: path.resolve(values['keep-proof']) } : {}),
      // The SSH runner's slot: one core of its own, as a local run has.
      cpu: cpuOfSlot(process.env[CPU_SLOT_ENV]),
      ...(values['drat-trim'] ? { dratTrim: values['drat-trim'] } : {}),
      maxProofMb,
      checkerTimeoutS,
      ...(checker ? { checker } : {}),
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

/** `--check-kept`: drat-trim on a kept proof; prints the run's result as the proof judges it (one JSON line). */
async function checkKept(values: {
  'check-kept'?: string;
  cnf?: string;
  'drat-trim'?: string;
  result?: string;
  'checker-timeout'?: string;
  checker?: string;
  'max-proof-mb': string;
  timeout: string;
}): Promise<number> {
  let result: InstanceResult | undefined;
  try {
    result = InstanceResult.parse(JSON.parse(values.result ?? ''));
  } catch {
    result = undefined;
  }
  const checkerTimeoutS = Number(values['checker-timeout'] ?? 3 * Number(values.timeout));
  const maxProofMb = Number(values['max-proof-mb']);
  const checker = checkerFlag(values.checker);
  const problems = [
    !values.cnf || !values['drat-trim'] ? USAGE : '',
    !result ? "--result must be the run's result as JSON" : '',
    !(checkerTimeoutS > 0) ? `--checker-timeout must be a positive number of seconds, got "${values['checker-timeout']}"` : '',
    !(maxProofMb > 0) ? `--max-proof-mb must be a positive number of MB, got "${values['max-proof-mb']}"` : '',
    checker === null ? `--checker must be evaluation.checker as JSON, got "${values.checker}"` : '',
  ].filter(Boolean);
  if (problems.length || !result) {
    process.stderr.write(`worker: ${problems.join('\nworker: ')}\n`);
    return 2;
  }
  const stop = new AbortController();
  const onStop = () => stop.abort();
  process.once('SIGTERM', onStop);
  try {
    const r = await checkKeptProof({
      result,
      cnf: path.resolve(values.cnf!),
      proof: path.resolve(values['check-kept']!),
      dratTrim: values['drat-trim']!,
      checkerTimeoutS,
      maxProofMb,
      ...(checker ? { checker } : {}),
      signal: stop.signal,
    });
    if (stop.signal.aborted) return 143;
    process.stdout.write(JSON.stringify(r) + '\n');
    return 0;
  } finally {
    process.off('SIGTERM', onStop);
  }
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

/** `--checker`: evaluation.checker as JSON; undefined when not given, null when it is not valid. */
function checkerFlag(text: string | undefined): CheckerPolicy | undefined | null {
  if (text === undefined) return undefined;
  try {
    return CheckerPolicy.parse(JSON.parse(text));
  } catch {
    return null;
  }
}

if (require.main === module) void main(process.argv.slice(2)).then((c) => (process.exitCode = c));
