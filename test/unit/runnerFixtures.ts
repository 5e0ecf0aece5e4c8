// Shared by the runner tests: a built tinysat candidate, a small mixed instance set, and one
// evaluation through the real evaluator on a given runner.
import type { IsolationSettings } from '../../src/core/isolation/settings';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pigeonhole, planted3Sat } from '../../src/core/instances/generators';
import { InstanceCache, listSet } from '../../src/core/instances/instances';
import { buildSolver } from '../../src/core/run/buildSolver';
import { runSet, type RunSetOutcome } from '../../src/core/eval/runSet';
import type { InstanceResult } from '../../src/core/run/result';
import { ResultsStore } from '../../src/core/eval/resultsStore';
import type { Runner } from '../../src/core/runners/runner';
import { FIXTURES, tempDir, write } from './helpers';

/** tinysat built from the fixture seed, optionally slowed down so runs are in flight long enough. */
export async function tinysat(delayS = 0): Promise<string> {
  const dir = path.join(tempDir(), 'SATLUTION_1');
  fs.cpSync(path.join(FIXTURES, 'seeds', 'tinysat'), dir, { recursive: true });
  write(path.join(dir, 'starexec_build'), '#!/bin/sh\nset -e\ncd "$(dirname "$0")"\nmake -s\nmkdir -p bin\ncp tinysat bin/\n');
  write(path.join(dir, 'bin', 'starexec_run_default'), `#!/bin/sh\n${delayS ? `sleep ${delayS}\n` : ''}exec "$(dirname "$0")/tinysat" "$1"\n`);
  fs.chmodSync(path.join(dir, 'bin', 'starexec_run_default'), 0o755);
  const b = await buildSolver(dir, 120);
  assert.ok(b.ok, b.detail);
  return dir;
}

export function makeSet(extra: Record<string, string> = {}): string {
  const dir = tempDir();
  for (const f of ['sat-small.cnf', 'unsat-small.cnf']) fs.copyFileSync(path.join(FIXTURES, 'cnf', f), path.join(dir, f));
  write(path.join(dir, 'php-4-3.cnf'), pigeonhole(4, 3));
  for (const s of [1, 2, 3]) write(path.join(dir, `planted-${s}.cnf`), planted3Sat(20, 4.0, s));
  for (const [name, text] of Object.entries(extra)) write(path.join(dir, name), text);
  return dir;
}

export async function evalOn(
  runner: Runner,
  set: string,
  opts: {
    solver: string;
    store?: ResultsStore;
    isolation?: IsolationSettings;
    signal?: AbortSignal;
    onResult?: (r: InstanceResult) => void;
    onStatus?: (m: string) => void;
  },
): Promise<RunSetOutcome> {
  return runSet({
    solverDir: opts.solver,
    instances: await listSet(set),
    timeoutS: 30,
    memMb: 1024,
    checkProofs: false,
    maxProofMb: 64,
    checkerTimeoutS: 30,
    jobs: 2,
    cache: new InstanceCache(tempDir()),
    store: opts.store ?? new ResultsStore(path.join(tempDir(), 'runs.jsonl')),
    runner,
    ...(opts.isolation ? { isolation: opts.isolation } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.onResult ? { onResult: opts.onResult } : {}),
    ...(opts.onStatus ? { onStatus: opts.onStatus } : {}),
  });
}

export const summary = (o: RunSetOutcome) => o.results.map((r) => [r.instance, r.status, r.answer, r.expected]);
