// Stage 1's build: `bash starexec_build` in its sandbox (isolation/) under a time limit, with compiler
// and linker diagnostics parsed into file / line / message so an agent (or a person) can act on them.
import { BUILD_DIR_PREFIX, makeOwnedDir } from './owner';
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { confine } from '../isolation/confine';
import { buildConfinement } from '../isolation/confinement';
import { DEFAULT_ISOLATION, type IsolationSettings } from '../isolation/settings';
import { BUILD_SCRIPT, RUN_SCRIPT } from '../layout';
import { runCaptured } from './captured';

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

/**
 * `bash starexec_build` in `solverDir`, confined by `isolation` (default: the sandbox): it can write
 * its own directory and a private scratch directory, and sees nothing else of the workspace or $HOME.
 * Throws IsolationUnavailable when the sandbox the settings ask for cannot be made here.
 */
export async function buildSolver(solverDir: string, timeoutS = 600, signal?: AbortSignal, isolation: IsolationSettings = DEFAULT_ISOLATION): Promise<BuildResult> {
  const script = path.join(solverDir, BUILD_SCRIPT);
  if (!(await fs.stat(script).then((s) => s.isFile(), () => false)))
    return { ok: false, timeS: 0, detail: `no ${BUILD_SCRIPT} in ${solverDir}`, diagnostics: [], log: '' };
  const scratch = await makeOwnedDir(os.tmpdir(), BUILD_DIR_PREFIX);
  const dir = path.resolve(solverDir);
  let run: Awaited<ReturnType<typeof runCaptured>>;
  try {
    const boxed = await confine(isolation, buildConfinement({ dir, scratch, network: isolation.buildNetwork, readOnly: [] }), '/bin/bash', [BUILD_SCRIPT]);
    run = await runCaptured(boxed.cmd, boxed.args, { cwd: boxed.cwd, env: boxed.env, timeoutS, keepBytes: 1 << 20, ...(signal ? { signal } : {}) });
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
  const diagnostics = parseDiagnostics(run.output, solverDir);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const first = errors[0] ? ` — ${errors[0].file ? `${errors[0].file}:${errors[0].line}: ` : ''}${errors[0].message}` : '';
  const runnable = await fs.access(path.join(solverDir, RUN_SCRIPT), fs.constants.X_OK).then(() => true, () => false);
  const ok = !run.timedOut && run.code === 0 && runnable;
  const detail = run.spawnError
    ? `cannot run bash: ${run.spawnError}`
    : run.timedOut
      ? `the build did not finish within ${timeoutS} s`
      : run.code !== 0
        ? `build failed (exit ${run.code}, ${errors.length} error${errors.length === 1 ? '' : 's'})${first}`
        : !runnable
          ? `the build succeeded but ${RUN_SCRIPT} is missing or not executable`
          : '';
  return { ok, timeS: run.timeS, detail, diagnostics, log: run.output.slice(-16000) };
}
