// Per-instance run logs: what was run, under which limits, how it was classified, and the head and tail
// of the solver's output (the runner keeps only excerpts). Written to
// .satlution/logs/<solver hash>/<instance name>.log for workspace evaluations, so a person can see why
// a run failed; a run reused from the results store has no fresh log, and gets a text built from its
// stored result instead.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { InstanceResult } from './result';

/** Under the workspace's state directory. */
export const LOGS_DIR = 'logs';

/**
 * The log file of one run, or undefined for an instance name that could leave the log directory
 * (names are paths relative to their set, with `/`; anything else is refused, never sanitized).
 */
export function runLogPath(logDir: string, solverHash: string, instance: string): string | undefined {
  if (!/^[0-9a-f]{8,128}$/.test(solverHash)) return undefined;
  const parts = instance.split('/');
  if (!instance || instance.length > 1024 || parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\') || p.includes('\0'))) return undefined;
  return `${path.join(logDir, solverHash, ...parts)}.log`;
}

export interface RunLogInput {
  result: InstanceResult;
  /** The command, as run (before any memory-limit wrapper). */
  command?: string[];
  timeoutS: number | null;
  memMb: number | null;
  memoryMethod?: string;
  /** The sandbox the run had (`bwrap`, or `off`: measured without isolation). */
  isolation?: string;
  /** How its processes and scratch space were bounded, and what was not. */
  limits?: string;
  /** Output excerpts as the runner kept them; absent when the run was not observed (reused). */
  output?: { stdout: string; stderr: string; bytes: number };
  at: string;
  solverHash?: string;
}

const secs = (t: number) => `${t.toFixed(3)} s`;

/** The log's text: a header a person reads first, then the output excerpts. */
export function formatRunLog(o: RunLogInput): string {
  const r = o.result;
  const check =
    r.check.kind === 'none'
      ? r.check.detail
        ? `none (${r.check.detail})`
        : 'none'
      : `${r.check.kind}: ${r.check.ok === null ? 'not decided' : r.check.ok ? 'ok' : 'FAILED'} in ${secs(r.check.time_s)}${r.check.detail ? ` - ${r.check.detail}` : ''}`;
  const lines = [
    `# ${r.instance}`,
    `when:      ${o.at}`,
    ...(o.solverHash ? [`solver:    ${o.solverHash}`] : []),
    ...(o.command ? [`command:   ${o.command.join(' ')}`] : []),
    `limits:    ${o.timeoutS ?? '?'} s wall clock, ${o.memMb ?? '?'} MB${o.memoryMethod ? ` (${o.memoryMethod})` : ''}`,
    ...(o.isolation ? [`sandbox:   ${o.isolation === 'off' ? 'none (measured without isolation)' : o.isolation}`] : []),
    ...(o.limits ? [`bounds:    ${o.limits}`] : []),
    `status:    ${r.status}${r.detail ? ` - ${r.detail}` : ''}`,
    `answer:    ${r.answer ?? '(none)'}${r.expected ? ` (expected ${r.expected}, from ${r.expected_from === 'meta' ? 'meta.csv, proved' : r.expected_from === 'claim' ? 'meta.csv, a claim' : r.expected_from === 'vbs' ? 'the baselines' : 'nowhere'})` : ''}`,
    `time:      ${secs(r.time_s)} wall clock, ${r.cpu_s === null ? 'CPU not measured' : `${secs(r.cpu_s)} CPU`}${r.mem_mb === null ? '' : `, peak ${r.mem_mb} MB`}`,
    `exit:      ${r.exit_code ?? '-'}${r.signal ? `, signal ${r.signal}` : ''}`,
    `check:     ${check}`,
    '',
  ];
  if (!o.output) {
    lines.push(
      'The solver output of this run was not kept: the result was reused from the results store',
      '(.satlution/results/runs.jsonl), so the solver was not run again. Re-evaluating a changed',
      'solver writes a fresh log.',
      '',
    );
    return lines.join('\n');
  }
  const block = (name: string, text: string) => [
    `---- ${name} ${'-'.repeat(Math.max(0, 60 - name.length))}`,
    text.length ? text.replace(/\n$/, '') : '(empty)',
    '',
  ];
  lines.push(`output:    ${o.output.bytes} bytes (head and tail kept)`, '', ...block('stdout', o.output.stdout), ...block('stderr', o.output.stderr));
  return lines.join('\n');
}

/** Writes a log; a log is a convenience, so a failure to write it never fails the run. */
export async function writeRunLog(file: string, text: string): Promise<boolean> {
  try {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, text);
    return true;
  } catch {
    return false;
  }
}
