// Names of the files and directories that make up a SATLUTION workspace (ARCHITECTURE.md, "Files on disk").
import * as path from 'node:path';

export const CONFIG_FILE = 'satlution.yaml';
export const RULES_DIR = '.rules';
export const STATE_DIR = '.satlution';
export const SEEDS_DIR = 'seeds';
export const BENCH_DIR = 'benchmarks';
export const CANDIDATE_PREFIX = 'SATLUTION_';
/** The documents every candidate carries (paper Listing 1). */
export const CANDIDATE_DOCS = ['HYPOTHESIS.md', 'CHANGELOG.md', 'RESULTS.md'] as const;
export type CandidateDoc = (typeof CANDIDATE_DOCS)[number];
export const RUN_SCRIPT = path.join('bin', 'starexec_run_default');
export const BUILD_SCRIPT = 'starexec_build';

export const candidateDirName = (id: number): string => `${CANDIDATE_PREFIX}${id}`;

/** The candidate id of a directory name such as `SATLUTION_12`, or undefined. */
export function parseCandidateDir(name: string): number | undefined {
  const m = /^SATLUTION_(0|[1-9]\d{0,8})$/.exec(name);
  return m ? Number(m[1]) : undefined;
}
