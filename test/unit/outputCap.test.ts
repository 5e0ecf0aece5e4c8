// evaluation.output_max_mb reaches every run: a solver that floods its output is stopped and counted
// as a crash at the configured size, locally through the evaluation service and in the one-file worker
// that SSH hosts and Slurm nodes run (its --max-output-mb comes from the runner's command line).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../../src/core/config/load';
import { runKey } from '../../src/core/eval/resultsStore';
import { evaluateSolver } from '../../src/core/eval/service';
import { workerArgs } from '../../src/core/runners/remoteWorker';
import { tinysatCycleWorkspace } from './cycleWorkspace';
import { tempDir, WORKER, write } from './helpers';

/** Makes the champion print `mb` MB of comment lines before it solves. */
function flood(ws: string, mb: number): void {
  const bin = path.join(ws, 'SATLUTION_0', 'bin');
  fs.renameSync(path.join(bin, 'starexec_run_default'), path.join(bin, 'quiet_run'));
  write(
    path.join(bin, 'starexec_run_default'),
    `#!/usr/bin/env bash\nyes 'c flooding the output' | head -c ${mb * 2 ** 20}\nexec "$(dirname "$0")/quiet_run" "$@"\n`,
  );
  fs.chmodSync(path.join(bin, 'starexec_run_default'), 0o755);
}

describe('evaluation.output_max_mb', function () {
  this.timeout(120000);

  it('stops a run at the configured output size, and only then', async () => {
    const ws = await tinysatCycleWorkspace({ approval: 'auto', perf: 2, perfSeed: 80 });
    flood(ws, 3);
    const cfg = path.join(ws, 'satlution.yaml');
    const evaluate = async () =>
      evaluateSolver({
        ws,
        config: await loadConfig(ws),
        solverDir: path.join(ws, 'SATLUTION_0'),
        overrides: { stage: 'perf' },
        runnerEnv: { workerFile: '' },
        record: false,
      });
    const roomy = await evaluate();
    assert.equal(roomy.verdict, 'pass', roomy.gates.map((g) => g.detail).join('; '));
    const text = fs.readFileSync(cfg, 'utf8');
    assert.match(text, /^ {2}output_max_mb: 256/m);
    fs.writeFileSync(cfg, text.replace(/^ {2}output_max_mb: 256/m, '  output_max_mb: 1'));
    const tight = await evaluate();
    assert.equal(tight.verdict, 'fail');
    const perf = tight.gates.find((g) => g.gate === 'perf')!;
    assert.ok(
      perf.results!.every((r) => r.status === 'crash' && /wrote more than 1 MB of output/.test(r.detail)),
      JSON.stringify(perf.results!.map((r) => r.detail)),
    );
  });

  it('reaches the worker that remote runners start', async () => {
    const ws = await tinysatCycleWorkspace({ approval: 'auto', perf: 1, perfSeed: 90 });
    flood(ws, 3);
    const cnf = path.join(ws, 'benchmarks', 'perf', 'p0.cnf');
    const settings = {
      solverDir: path.join(ws, 'SATLUTION_0'),
      timeoutS: 20,
      memMb: 1024,
      checkProofs: false,
      maxProofMb: 64,
      checkerTimeoutS: 20,
      maxOutputMb: 1,
    };
    const task = {
      key: 'k',
      name: 'p0.cnf',
      cnf,
      instanceHash: 'h',
      vars: 30,
      emptyClause: false,
      family: null,
      expected: 'SAT' as const,
      expectedFrom: 'meta' as const,
    };
    const args = workerArgs(settings, task, { solver: settings.solverDir, cnf, dratTrim: '' });
    assert.ok(args.includes('--max-output-mb=1'), args.join(' '));
    const r = spawnSync(process.execPath, [WORKER, ...args], { encoding: 'utf8', cwd: tempDir() });
    assert.equal(r.status, 0, r.stderr);
    const res = JSON.parse(r.stdout) as { status: string; detail: string };
    assert.equal(res.status, 'crash');
    assert.match(res.detail, /wrote more than 1 MB of output/);
    const bad = spawnSync(process.execPath, [WORKER, ...args.map((a) => (a === '--max-output-mb=1' ? '--max-output-mb=lots' : a))], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--max-output-mb must be a positive number of MB, got "lots"/);
  });

  it("is part of a stored run's key, except at the old fixed 256 MB (stored results stay valid)", () => {
    const parts = { solverHash: 's', instanceHash: 'i', timeoutS: 10, memMb: 100, checkProofs: true };
    assert.equal(runKey({ ...parts, maxOutputMb: 256 }), runKey(parts));
    assert.notEqual(runKey({ ...parts, maxOutputMb: 1 }), runKey(parts));
  });
});
