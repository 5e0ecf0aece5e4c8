// The sbatch side of the Slurm runner: one array job whose element i reads line i of a task file on
// the shared filesystem and runs the one-file worker on it. Task data never becomes shell text: each
// line is JSON, decoded by node into NUL-separated words, so instance names with spaces, quotes or
// newlines reach the worker unchanged. The script itself is constant apart from quoted paths.
import { z } from 'zod';
import { shq } from '../shellQuote';

/** A task's key names its result file: keep it to characters that are safe in paths. */
export const TaskKey = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'a task key is letters, digits, ".", "_" and "-"');

export interface SlurmTask {
  key: string;
  /** Arguments for worker.js (after `node worker.js`). */
  args: string[];
}

export interface ArrayOptions {
  jobName: string;
  /** Shared directory: tasks/, results/, logs/ live below it. */
  workdir: string;
  node: string;
  workerFile: string;
  partition?: string;
  account?: string;
  qos?: string;
  cpusPerTask: number;
  memMb: number;
  /** At most this many elements at once (`%N`). */
  throttle?: number;
  timeLimitMin: number;
  extraArgs: readonly string[];
}

/** One JSON line per task; JSON escapes newlines, so line i is always task i. */
export function renderTaskFile(tasks: readonly SlurmTask[]): string {
  return tasks.map((t) => JSON.stringify([TaskKey.parse(t.key), ...t.args])).join('\n') + '\n';
}

/**
 * Slurm's --time is a backstop, not the SAT timeout: it is enforced in whole minutes and checked only
 * every ~30 s, so the worker enforces the per-instance limit itself. The backstop allows twice the
 * run plus proof checking (3x the timeout) and start-up, so it only ends tasks that are truly stuck.
 */
export function timeLimitMinutes(timeoutS: number, checkProofs: boolean): number {
  const budgetS = timeoutS * (checkProofs ? 4 : 1) * 2 + 300;
  return Math.ceil(budgetS / 60);
}

/** sbatch's argument array; the script comes on stdin, the task file is the script's one argument. */
/**
 * What a job sees of the submitting environment: enough to find node and a temp dir, nothing else.
 * sbatch would otherwise copy everything (--export=ALL), API keys and SSH_AUTH_SOCK included, into the
 * job and Slurm's state files. `sbatch_args` may name more (a later --export wins).
 */
export const JOB_ENV = ['PATH', 'LANG', 'LC_ALL', 'HOME', 'TMPDIR', 'TZ'] as const;

export function sbatchArgs(o: ArrayOptions, count: number, scriptFile: string, taskFile: string): string[] {
  if (count < 1) throw new Error('an array job needs at least one task');
  return [
    '--parsable',
    `--export=${JOB_ENV.join(',')}`,
    `--job-name=${o.jobName}`,
    `--array=0-${count - 1}${o.throttle ? `%${o.throttle}` : ''}`,
    ...(o.partition ? [`--partition=${o.partition}`] : []),
    ...(o.account ? [`--account=${o.account}`] : []),
    ...(o.qos ? [`--qos=${o.qos}`] : []),
    '--ntasks=1',
    `--cpus-per-task=${o.cpusPerTask}`,
    `--mem=${o.memMb}M`,
    `--time=${o.timeLimitMin}`,
    `--chdir=${o.workdir}`,
    `--output=${o.workdir}/logs/%A_%a.out`,
    ...o.extraArgs,
    scriptFile,
    taskFile,
  ];
}

// Decodes line $SLURM_ARRAY_TASK_ID of the task file into NUL-terminated words (key first).
const DECODE = `const l=require('fs').readFileSync(process.argv[1],'utf8').split('\\n')[Number(process.argv[2])];if(!l)process.exit(3);for(const w of JSON.parse(l))process.stdout.write(String(w)+'\\0')`;

/**
 * The batch script. The result goes to a temp file first and is renamed into results/<key>.json only
 * when the worker succeeded: a result file on the shared filesystem is always complete, so it is the
 * source of truth for the runner (also after a restart), and a failed task leaves none.
 */
export function renderScript(o: Pick<ArrayOptions, 'node' | 'workerFile'>): string {
  return [
    '#!/bin/bash',
    '# Written by SATLUTION: one array element runs one instance with the worker.',
    'set -u',
    `NODE=${shq(o.node)}`,
    `WORKER=${shq(o.workerFile)}`,
    'TASKS="$1"',
    'mapfile -d "" -t W < <("$NODE" -e ' + shq(DECODE) + ' "$TASKS" "$SLURM_ARRAY_TASK_ID")',
    '[ "${#W[@]}" -ge 1 ] || { echo "satlution: no task $SLURM_ARRAY_TASK_ID in $TASKS" >&2; exit 3; }',
    'KEY="${W[0]}"',
    'mkdir -p results',
    'R="results/$KEY.json"',
    'T="results/.$KEY.$SLURM_JOB_ID.tmp"',
    '"$NODE" "$WORKER" "${W[@]:1}" > "$T"',
    'st=$?',
    'if [ $st -ne 0 ] || [ ! -s "$T" ]; then rm -f "$T"; echo "satlution: worker exited with $st" >&2; exit $(( st ? st : 4 )); fi',
    'mv -f "$T" "$R"',
    '',
  ].join('\n');
}
