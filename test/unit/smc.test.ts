// The smc strategy: SMCEvolve's arithmetic (rewards, ESS bisection for the temperature step,
// resampling, MH acceptance, Thompson sampling) and real cycles with the offline tuner, where each
// cycle is one MH move of one particle and iterations raise the temperature until the run ends.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { tunerAgent } from '../../src/core/agents/tuner';
import { prng } from '../../src/core/stats/prng';
import { loadConfig } from '../../src/core/config/load';
import { BudgetExhausted } from '../../src/core/cycle/budget';
import { runCycle } from '../../src/core/cycle/engine';
import { DashboardSource } from '../../src/core/dashboard/dashboardData';
import { silentLogger } from '../../src/core/ports';
import { readSmc } from '../../src/core/strategy/smcState';
import { acceptance, ess, nextLambda, reward, systematicResample, thompson, updateArms, weights } from '../../src/core/strategy/smcMath';
import { CLI } from './helpers';
import { optsatWorkspace, withStrategy } from './optsatWorkspace';

describe('smc: arithmetic', () => {
  it('rewards a halving of PAR-2 with +0.5 and clips at 0 and 1', () => {
    assert.equal(reward(10, 10), 0.5);
    assert.equal(reward(5, 10), 1);
    assert.equal(reward(20, 10), 0);
    assert.equal(reward(40, 10), 0);
    assert.ok(Math.abs(reward(9.5, 10) - (0.5 + 0.5 * Math.log2(10 / 9.5))) < 1e-12);
  });

  it('chooses the largest temperature step that keeps ESS >= kappa N', () => {
    assert.equal(ess([0.25, 0.25, 0.25, 0.25]), 4);
    assert.equal(nextLambda([0.5, 0.5, 0.5, 0.5], 0, 40, 0.9, 1 / 3), 1 / 3, 'equal rewards: the cap');
    const r = [0.2, 0.5, 0.6, 0.9];
    const l = nextLambda(r, 0, 40, 0.9, 1 / 3);
    assert.ok(l > 0 && l < 1 / 3, String(l));
    assert.ok(Math.abs(ess(weights(r, l * 40)) - 3.6) < 0.01, 'the step lands on the threshold');
    const w = weights([0, 1], Math.log(3));
    assert.ok(Math.abs(w[0]! - 0.25) < 1e-12 && Math.abs(w[1]! - 0.75) < 1e-12);
  });

  it("resamples systematically and accepts by min(1, exp(beta (R' - R))), never a failure", () => {
    assert.deepEqual(systematicResample([0.1, 0.2, 0.7], 0.5), [1, 2, 2]);
    assert.deepEqual(systematicResample([0.5, 0.5], 0.1), [0, 1]);
    assert.equal(acceptance(10, 0.5, 0.6, false), 1);
    assert.ok(Math.abs(acceptance(10, 0.6, 0.5, false) - Math.exp(-1)) < 1e-12);
    assert.equal(acceptance(10, 0.5, 0.9, true), 0);
  });

  it('samples the kernel whose posterior is best, and decays old evidence', () => {
    const rnd = prng(5);
    const wins = Array.from({ length: 200 }, () => thompson({ good: { a: 30, b: 2 }, bad: { a: 2, b: 30 } }, rnd)).filter((k) => k === 'good').length;
    assert.ok(wins > 190, String(wins));
    const arms = updateArms({ x: { a: 3, b: 1 }, y: { a: 1, b: 5 } }, 'x', false);
    const round = (x: number) => Math.round(x * 1e6) / 1e6;
    assert.deepEqual(Object.fromEntries(Object.entries(arms).map(([k, v]) => [k, { a: round(v.a), b: round(v.b) }])), {
      x: { a: 2.97, b: 2 },
      y: { a: 1, b: 4.95 },
    });
  });
});

describe('smc: cycles', function () {
  this.timeout(300000);

  it('moves one particle per cycle, raises the temperature each iteration and ends the run', async () => {
    const ws = await optsatWorkspace({
      perf: 6,
      perfSeed: 700,
      edit: withStrategy('{ name: smc, smc: { particles: 2, mh_steps: 1, min_iterations: 2, max_iterations: 2 } }'),
    });
    const config = await loadConfig(ws);
    const logs: string[] = [];
    const hints: string[] = [];
    const tuner = tunerAgent();
    const agent = { ...tuner, plan: (ctx: Parameters<typeof tuner.plan>[0]) => (hints.push(ctx.hint ?? ''), tuner.plan(ctx)) };
    const lambdas: number[] = [];
    for (let c = 0; c < 5; c++) {
      await runCycle({
        ws,
        config,
        agent,
        approver: { confirm: async () => true },
        log: silentLogger,
        jobs: 2,
        onEvent: (e) => e.type === 'log' && logs.push(e.message),
      });
      lambdas.push((await readSmc(ws))!.lambda);
    }
    const s = (await readSmc(ws))!;
    // 2 particles x 1 move x 2 iterations = 4 moves end run 1 (T_max); the 5th cycle is run 2's first.
    assert.equal(s.run, 2, JSON.stringify(s.ended));
    assert.match(s.ended[0]!.reason, /T_max = 2 iterations|lambda reached 1|stalled|has not improved/);
    assert.ok(lambdas[0]! > 0 && lambdas[2]! > lambdas[0]!, `lambda rises within a run: ${lambdas.join(', ')}`);
    assert.ok(
      logs.some((l) =>
        /^cycle 1 starts from SATLUTION_0: SMC run 1, iteration 1 \(lambda 0\.\d+, beta_t [\d.]+\): particle 1\/2, move 1\/1, kernel \S+; about \d+ evaluations left in this run$/.test(
          l,
        ),
      ),
      logs.join('\n'),
    );
    // Run 1 ends at T_max; when lambda reaches 1 in that same iteration, that reason is named instead.
    assert.ok(
      logs.some((l) => /: SMC run 1 ended: (T_max = 2 iterations|lambda reached 1 after 2 iterations[^;]*); SMC run 2, iteration 1/.test(l)),
      logs.join('\n'),
    );
    assert.equal(
      logs.filter((l) =>
        /^SMC: SATLUTION_\d+ (reward [\d.]+ vs [\d.]+, acceptance [\d.]+: (accepted|rejected)|failed its gates: rejected) \(kernel \S+\)$/.test(l),
      ).length,
      5,
      logs.join('\n'),
    );
    // Every proposal carried its kernel to the agent; the kernels' evidence counts every move.
    assert.equal(hints.length, 5);
    assert.ok(
      hints.every((h) => /^(diff|rewrite)/.test(h)),
      hints.join(' | '),
    );
    const evidence = Object.values(s.kernels).reduce((n, k) => n + k.a + k.b, 0);
    assert.ok(evidence > 8 && evidence <= 13, `4 fresh arms (8) plus 5 decayed updates: ${evidence}`);
    const dash = (await new DashboardSource(ws).build()).data;
    assert.equal(dash.strategy, 'smc');
    assert.equal(dash.smc!.run, 2);
    assert.equal(dash.smc!.particles.length, 2);
  });
});

describe('budgets', function () {
  this.timeout(300000);

  it('ends an SMC run when its evaluation budget is spent, mid-iteration', async () => {
    const ws = await optsatWorkspace({ perf: 4, perfSeed: 760, edit: withStrategy('{ name: smc, smc: { particles: 2, mh_steps: 2, max_evaluations: 3 } }') });
    const config = await loadConfig(ws);
    for (let c = 0; c < 4; c++) await runCycle({ ws, config, agent: tunerAgent(), approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });
    const s = (await readSmc(ws))!;
    assert.equal(s.run, 2);
    assert.equal(s.ended[0]!.reason, 'its budget of 3 evaluations is spent');
    assert.equal(s.moves, 1, "the 4th cycle is the new run's first move");
  });

  it('starts no new cycle once budgets.cpu_hours is spent, and says so', async () => {
    const ws = await optsatWorkspace({ perf: 4, perfSeed: 780, edit: (y) => y.replace(/^budgets:.*$/m, 'budgets: { cpu_hours: 0.000001 }') });
    const config = await loadConfig(ws);
    assert.equal(config.budgets.cpu_hours, 0.000001);
    const first = await runCycle({ ws, config, agent: tunerAgent(), approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });
    assert.equal(first.step, 'done', 'the cycle in progress finishes');
    await assert.rejects(
      runCycle({ ws, config, agent: tunerAgent(), approver: { confirm: async () => true }, log: silentLogger, jobs: 2 }),
      (e: unknown) => e instanceof BudgetExhausted && /the CPU budget of 0\.000001 h is spent \([\d.]+ h of solver time used\)/.test((e as Error).message),
    );
    const cli = spawnSync(process.execPath, [CLI, 'cycle', '--dir', ws, '--agent', 'tuner'], { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stderr, /satlution cycle: stopped: the CPU budget of 0\.000001 h is spent/);
  });
});
