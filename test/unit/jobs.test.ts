// `runners[<local>].jobs` is how many solver runs execute at once, whichever way an evaluation starts:
// the evaluation service, `satlution eval`, and a cycle (the editor's Evaluate Candidate is checked in
// the integration suite). A probe in the solver's run script counts the runs active at once.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../../src/core/config/load';
import { runCycle, type EvolutionAgent } from '../../src/core/cycle/engine';
import { evaluateSolver } from '../../src/core/eval/service';
import { silentLogger } from '../../src/core/ports';
import { installProbe, type ConcurrencyProbe } from '../fixtures/concurrencyProbe';
import { tinysatCycleWorkspace } from './cycleWorkspace';
import { CLI, tempDir } from './helpers';

/** A tinysat workspace whose local runner runs `jobs` at once, with the probe in its champion. */
async function probedWorkspace(jobs: number): Promise<{ ws: string; probe: ConcurrencyProbe }> {
  const ws = await tinysatCycleWorkspace({ approval: 'auto', perf: 6, perfSeed: 70 });
  const cfg = path.join(ws, 'satlution.yaml');
  const text = fs.readFileSync(cfg, 'utf8');
  assert.match(text, /- \{ name: local, kind: local, jobs: \d+ \}/, 'the template writes the local runner with its jobs');
  // The probe counts runs in a directory outside the candidate, which only an unconfined run can write.
  fs.writeFileSync(
    cfg,
    text.replace(/- \{ name: local, kind: local, jobs: \d+ \}/, `- { name: local, kind: local, jobs: ${jobs} }`).replace(/^sandbox: on$/m, 'sandbox: off'),
  );
  return { ws, probe: installProbe(path.join(ws, 'SATLUTION_0'), tempDir('probe-')) };
}

/** An agent whose change is a global the solver never reads: a new binary, the same behaviour. */
const touchAgent: EvolutionAgent = {
  name: 'touch',
  async plan({ candidate }) {
    return {
      title: 'an unused global',
      hypothesis: `# ${candidate}: an unused global\n\n## Change\nA global variable nothing reads.\n\n## Rationale\nA new binary that behaves like the old one.\n\n## Expected effect\nNone.\n`,
    };
  },
  async code({ candidateDir }) {
    fs.appendFileSync(path.join(candidateDir, 'tinysat.c'), '\nvolatile int satlution_touched = 1;\n');
    return { finished: true, detail: 'done' };
  },
};

describe('jobs: every entry point runs as many solver runs at once as the config says', function () {
  this.timeout(240000);

  for (const jobs of [1, 2]) {
    it(`the evaluation service with jobs: ${jobs}`, async () => {
      const { ws, probe } = await probedWorkspace(jobs);
      const r = await evaluateSolver({
        ws,
        config: await loadConfig(ws),
        solverDir: path.join(ws, 'SATLUTION_0'),
        overrides: { stage: 'perf' },
        runnerEnv: { workerFile: '' },
      });
      assert.equal(r.verdict, 'pass', r.gates.map((g) => g.detail).join('; '));
      assert.equal(probe.runs(), 6);
      assert.equal(probe.max(), jobs);
    });

    it(`satlution eval with jobs: ${jobs}`, async () => {
      const { ws, probe } = await probedWorkspace(jobs);
      const r = spawnSync(process.execPath, [CLI, 'eval', path.join(ws, 'SATLUTION_0'), '--stage', 'perf'], { encoding: 'utf8', cwd: ws });
      assert.equal(r.status, 0, r.stderr + r.stdout);
      assert.equal(probe.runs(), 6);
      assert.equal(probe.max(), jobs);
    });

    it(`a cycle with jobs: ${jobs}`, async () => {
      const { ws, probe } = await probedWorkspace(jobs);
      const s = await runCycle({ ws, config: await loadConfig(ws), agent: touchAgent, approver: { confirm: async () => true }, log: silentLogger });
      assert.equal(s.step, 'done', s.outcome ?? '');
      // The champion on smoke (1), verify (2) and perf (6); the challenger's smoke and verify (3); the race,
      // the champion and the challenger side by side until it is dropped (at least min_instances, 5, each).
      assert.ok(probe.runs() >= 9 + 3 + 2 * 5, `${probe.runs()} runs; ${s.outcome}`);
      // Every part of it, the race's two sides at once included, keeps to the configured slots.
      assert.equal(probe.max(), jobs);
    });
  }

  it('--jobs on the command line overrides the config', async () => {
    const { ws, probe } = await probedWorkspace(2);
    const r = spawnSync(process.execPath, [CLI, 'eval', path.join(ws, 'SATLUTION_0'), '--stage', 'perf', '--jobs', '1'], { encoding: 'utf8', cwd: ws });
    assert.equal(r.status, 0, r.stderr + r.stdout);
    assert.equal(probe.max(), 1);
  });
});
