// The policies: what candidate code may see and write for each kind of execution. A confinement is
// plain data; `bwrap.ts` turns it into a bubblewrap command line and `confinedCommand.ts` applies it.
import * as path from 'node:path';
import { allowedEnvironment } from './environment';

/** Whether path `p` is `dir` or lies below it. */
export const isWithin = (p: string, dir: string): boolean => {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** One execution's view of the machine. Host paths appear at the same path inside. */
export interface Confinement {
  /** Visible, read-only (beyond the system directories every confinement gets). */
  readOnly: string[];
  /** Visible and writable. */
  writable: string[];
  /** A host file shown read-only at another path (the instance under its neutral name). */
  files: { from: string; to: string }[];
  cwd: string;
  env: Record<string, string>;
  network: boolean;
  /** The size of the sandbox's /tmp and /var/tmp (tmpfs mounts, each); absent: the kernel's default. */
  tmpBytes?: number;
}

/**
 * `bash starexec_build`: the candidate directory and a private scratch directory are writable; the
 * rest of the workspace, other candidates, benchmarks, `$HOME` and the network are out of sight.
 */
export function buildConfinement(o: { dir: string; scratch: string; network: boolean; readOnly: readonly string[] }): Confinement {
  return {
    readOnly: [...o.readOnly],
    writable: [o.dir, o.scratch],
    files: [],
    cwd: o.dir,
    env: allowedEnvironment({ home: path.join(o.scratch, 'home'), tmp: path.join(o.scratch, 'tmp'), build: true }),
    network: o.network,
  };
}

/**
 * One solver run: the solver read-only, its instance read-only under a neutral name, and a fresh
 * run directory (the proof, HOME and TMPDIR) as the only writable place. Nothing survives the run.
 */
export function solverRunConfinement(o: {
  solverDir: string;
  instance: string;
  given: string;
  runDir: string;
  proofDir?: string | undefined;
  readOnly: readonly string[];
}): Confinement {
  const proofElsewhere = o.proofDir !== undefined && !isWithin(o.proofDir, o.runDir);
  return {
    readOnly: [o.solverDir, ...o.readOnly],
    writable: [o.runDir, ...(proofElsewhere ? [o.proofDir!] : [])],
    files: o.instance === o.given ? [] : [{ from: o.instance, to: o.given }],
    cwd: o.solverDir,
    env: allowedEnvironment({ home: path.join(o.runDir, 'home'), tmp: path.join(o.runDir, 'tmp'), build: false }),
    network: false,
  };
}

/** A program of ours that runs untrusted code in-process (the objective functions): only its own files. */
export function scriptConfinement(o: { programDirs: readonly string[]; scratch: string }): Confinement {
  return {
    readOnly: [...o.programDirs],
    writable: [o.scratch],
    files: [],
    cwd: o.scratch,
    env: allowedEnvironment({ home: o.scratch, tmp: o.scratch, build: false }),
    network: false,
  };
}
