// Stage 1's build: `bash starexec_build` in its sandbox (isolation/) under a time limit and the limits
// of candidate code (processes, disk: resourceGuard.ts), with compiler and linker diagnostics parsed
// into file / line / message so an agent (or a person) can act on them; what the build left in the
// candidate's directory is checked before it counts as built.
import { BUILD_DIR_PREFIX, makeOwnedDir } from './owner';
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { confine } from '../isolation/confinedCommand';
import { buildConfinement } from '../isolation/confinement';
import { SYSTEM_PATH } from '../isolation/environment';
import { findExecutable } from '../isolation/probe';
import { DEFAULT_ISOLATION, type IsolationSettings, limitsOf } from '../isolation/settings';
import { BUILD_SCRIPT, RUN_SCRIPT } from '../layout';
import { inspectCandidate, treeProblem } from '../workspace/candidateCheck';
import { relinkInside } from '../workspace/candidateCopy';
import { type Captured, runCaptured } from './captured';
import { accountingJail } from './limits';
import { startGuard } from './resourceGuard';

export interface Diagnostic {
  file: string | null;
  line: number | null;
  column: number | null;
  severity: 'error' | 'warning';
  message: string;
}

export interface BuildResult {
  ok: boolean;
  timeS: number;
  detail: string;
  diagnostics: Diagnostic[];
  /** The last part of the build output. */
  log: string;
}

const COMPILER = /^(.+?):(\d+):(?:(\d+):)?\s+(fatal error|error|warning):\s+(.*)$/;
/** The longest output line parsed as a diagnostic. */
const MAX_DIAGNOSTIC_LINE = 4096;
const LINKER = /(undefined reference to .*|multiple definition of .*|cannot find -l\S+|ld returned \d+ exit status)/;

/**
 * Makes a diagnostic's path relative to the solver directory. Builds that run make in a subdirectory
 * (kissat: `make -C build`) report `../src/x.c`; the file is found by dropping the leading `../`.
 */
function relativeToRoot(file: string, root: string): string {
  if (path.isAbsolute(file)) return path.relative(root, file);
  const stripped = file.replace(/^(\.\.?\/)+/, '');
  return stripped !== file && existsSync(path.join(root, stripped)) ? stripped : file;
}

export function parseDiagnostics(log: string, root?: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const line of log.split('\n')) {
    // A compiler's line is short; a build can print anything (the regex is not worth running on a megabyte).
    if (line.length > MAX_DIAGNOSTIC_LINE) continue;
    const m = COMPILER.exec(line.trim());
    if (m) {
      const file = root ? relativeToRoot(m[1]!, root) : m[1]!;
      out.push({ file, line: Number(m[2]), column: m[3] ? Number(m[3]) : null, severity: m[4] === 'warning' ? 'warning' : 'error', message: m[5]!.trim() });
      continue;
    }
    const l = LINKER.exec(line);
    if (l) out.push({ file: null, line: null, column: null, severity: 'error', message: l[1]!.trim() });
  }
  return out;
}

let prlimit: string | null | undefined;

/** prlimit (util-linux), for the build's file size limit; without it only the watch bounds a file. */
export function prlimitHere(): string | undefined {
  prlimit ??= findExecutable('prlimit', `${process.env.PATH ?? ''}:${SYSTEM_PATH}`) ?? null;
  return prlimit ?? undefined;
}

/**
 * `cmd args` with no file it writes allowed past `maxMb` MB and a MiB (RLIMIT_FSIZE: the write that
 * would go further fails and its process gets SIGXFSZ). The MiB beyond lets the tree check after the
 * build see a file that was cut there as over the limit.
 */
function fileSizeLimited(cmd: string, args: string[], maxMb: number): [string, string[]] {
  const p = prlimitHere();
  return p ? [p, [`--fsize=${Math.floor((maxMb + 1) * 2 ** 20)}`, '--', cmd, ...args]] : [cmd, args];
}

/** What bash and make print for a process killed by SIGXFSZ. */
const FILE_TOO_LARGE = /File size limit exceeded/;

/**
 * `bash starexec_build` in `solverDir`, confined by `isolation` (default: the sandbox): it can write
 * its own directory and a private scratch directory, and sees nothing else of the workspace or $HOME.
 * Its processes and disk are bounded by `isolation.limits`: a build that goes over is stopped (its
 * whole process group and cgroup) and fails with the reason, as does one whose directory holds what
 * the harness refuses afterwards (candidateCheck.ts). Throws IsolationUnavailable when the sandbox
 * the settings ask for cannot be made here.
 */
export async function buildSolver(
  solverDir: string,
  timeoutS = 600,
  signal?: AbortSignal,
  isolation: IsolationSettings = DEFAULT_ISOLATION,
): Promise<BuildResult> {
  const script = path.join(solverDir, BUILD_SCRIPT);
  if (
    !(await fs.stat(script).then(
      (s) => s.isFile(),
      () => false,
    ))
  )
    return { ok: false, timeS: 0, detail: `no ${BUILD_SCRIPT} in ${solverDir}`, diagnostics: [], log: '' };
  const limits = limitsOf(isolation);
  const scratch = await makeOwnedDir(os.tmpdir(), BUILD_DIR_PREFIX);
  const dir = path.resolve(solverDir);
  // Links an earlier build made into this tree from another place (a moved workspace) point home again.
  await relinkInside(dir).catch(() => 0);
  // The build's cgroup caps its processes (and finds every one of them to kill); none where none can be made.
  const jail = await accountingJail(undefined, limits.processesMax);
  let run: Captured;
  let overLimit: string | undefined;
  try {
    const confinement = {
      ...buildConfinement({ dir, scratch, network: isolation.buildNetwork, readOnly: [] }),
      tmpBytes: Math.floor(limits.diskMaxMb * 2 ** 20),
    };
    const boxed = await confine(isolation, confinement, '/bin/bash', [BUILD_SCRIPT]);
    const [cmd, args] = fileSizeLimited(boxed.cmd, boxed.args, limits.diskMaxMb);
    const [jailed, jailedArgs] = jail ? jail.wrap(cmd, args) : [cmd, args];
    const guard = startGuard({
      what: 'the build',
      limits,
      jail,
      tree: dir,
      scratch: { dirs: [scratch], skip: [] },
      ...(boxed.tmpBytes ? { tmpfs: { mounts: ['/tmp', '/var/tmp'], bytes: boxed.tmpBytes } } : {}),
    });
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) stop.abort();
    try {
      run = await runCaptured(jailed, jailedArgs, {
        cwd: boxed.cwd,
        env: boxed.env,
        timeoutS,
        keepBytes: 1 << 20,
        signal: stop.signal,
        ...(jail ? { jail } : {}),
        started: (pid) => guard.start(pid, () => stop.abort()),
      });
    } finally {
      signal?.removeEventListener('abort', onAbort);
      overLimit = await guard.end();
    }
  } finally {
    await jail?.dispose();
    await fs.rm(scratch, { recursive: true, force: true });
  }
  // Absolute links into its own tree (kissat's configure makes one) are made relative, so they survive a move.
  await relinkInside(dir).catch(() => 0);
  const tree = treeProblem('the build', await inspectCandidate(dir, { maxBytes: limits.diskMaxMb * 2 ** 20 }));
  const diagnostics = parseDiagnostics(run.output, solverDir);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const first = errors[0] ? ` — ${errors[0].file ? `${errors[0].file}:${errors[0].line}: ` : ''}${errors[0].message}` : '';
  const runnable = await fs.access(path.join(solverDir, RUN_SCRIPT), fs.constants.X_OK).then(
    () => true,
    () => false,
  );
  const fileTooLarge = FILE_TOO_LARGE.test(run.output)
    ? `a file the build wrote reached its limit of ${limits.diskMaxMb} MB (evaluation.disk_max_mb)`
    : undefined;
  const ok = !run.timedOut && !overLimit && !tree && !fileTooLarge && run.code === 0 && runnable;
  const detail = run.spawnError
    ? `cannot run bash: ${run.spawnError}`
    : run.timedOut
      ? `the build did not finish within ${timeoutS} s`
      : (overLimit ??
        tree ??
        fileTooLarge ??
        (run.code !== 0
          ? `build failed (exit ${run.code}, ${errors.length} error${errors.length === 1 ? '' : 's'})${first}`
          : !runnable
            ? `the build succeeded but ${RUN_SCRIPT} is missing or not executable`
            : ''));
  return { ok, timeS: run.timeS, detail, diagnostics, log: run.output.slice(-16000) };
}
