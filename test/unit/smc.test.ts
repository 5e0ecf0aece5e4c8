// The smc strategy: SMCEvolve's arithmetic (rewards, ESS bisection for the temperature step,
// resampling, MH acceptance, Thompson sampling) and real cycles with the offline tuner, where each
// cycle is one MH move of one particle and iterations raise the temperature until the run ends.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tunerAgent } from '../../src/core/agents/tuner';
import { prng } from '../../src/core/bench/generators';
import { planted3Sat } from '../../src/core/bench/generators';
import { loadConfig } from '../../src/core/config/load';
import { runCycle } from '../../src/core/cycle/engine';
import { DashboardSource } from '../../src/core/dashboard/build';
import { silentLogger } from '../../src/core/ports';
import { readSmc } from '../../src/core/strategy/smc';
import { acceptance, ess, nextLambda, reward, systematicResample, thompson, updateArms, weights } from '../../src/core/strategy/smcMath';
import { initWorkspace } from '../../src/core/workspace/init';
import { FIXTURES, RULES, tempDir, write } from './helpers';

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

  it('resamples systematically and accepts by min(1, exp(beta (R\' - R))), never a failure', () => {
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
    assert.deepEqual(Object.fromEntries(Object.entries(arms).map(([k, v]) => [k, { a: round(v.a), b: round(v.b) }])), { x: { a: 2.97, b: 2 }, y: { a: 1, b: 4.95 } });
  });
});

describe('smc: cycles', function () {
  this.timeout(300000);

  it('moves one particle per cycle, raises the temperature each iteration and ends the run', async () => {
    const seed = tempDir();
    const tiny = fs.readFileSync(path.join(FIXTURES, 'seeds', 'tinysat', 'tinysat.c'), 'utf8');
    write(path.join(seed, 'src', 'options.h'), '#define OPTIONS \\\n  OPTION (delay, 100000000, 0, 1000000000, "busy-loop iterations before solving")\n');
    write(path.join(seed, 'src', 'optsat.c'), '#include "options.h"\n#define OPTION(N, V, L, H, D) static const long opt_##N = V;\nOPTIONS\n#undef OPTION\n' + tiny.replace('int main(int argc, char **argv) {\n', 'int main(int argc, char **argv) {\n  for (volatile long spin = 0; spin < opt_delay; spin++) {}\n'));
    write(path.join(seed, 'Makefile'), 'optsat: src/optsat.c src/options.h\n\t$(CC) -O2 -o optsat src/optsat.c\n');
    const ws = tempDir();
    await initWorkspace({ dir: ws, seeds: [{ name: 'optsat', source: seed }], defaultRulesDir: RULES, approver: { confirm: async () => true }, log: silentLogger });
    const cfg = path.join(ws, 'satlution.yaml');
    fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace(/check_proofs: true/g, 'check_proofs: false').replace('approval: semi', 'approval: auto').replace(/timeout_s: \d+/g, 'timeout_s: 20')
      .replace(/^strategy:.*$/m, 'strategy: { name: smc, smc: { particles: 2, mh_steps: 1, min_iterations: 2, max_iterations: 2 } }'));
    fs.copyFileSync(path.join(FIXTURES, 'cnf', 'sat-small.cnf'), path.join(ws, 'benchmarks', 'smoke', 'sat-small.cnf'));
    for (let i = 0; i < 6; i++) write(path.join(ws, 'benchmarks', 'perf', `p${i}.cnf`), planted3Sat(30, 4.0, 700 + i));
    const config = await loadConfig(ws);
    const logs: string[] = [];
    const hints: string[] = [];
    const tuner = tunerAgent();
    const agent = { ...tuner, plan: (ctx: Parameters<typeof tuner.plan>[0]) => (hints.push(ctx.hint ?? ''), tuner.plan(ctx)) };
    const lambdas: number[] = [];
    for (let c = 0; c < 5; c++) {
      await runCycle({ ws, config, agent, approver: { confirm: async () => true }, log: silentLogger, jobs: 2, onEvent: (e) => e.type === 'log' && logs.push(e.message) });
      lambdas.push((await readSmc(ws))!.lambda);
    }
    const s = (await readSmc(ws))!;
    // 2 particles x 1 move x 2 iterations = 4 moves end run 1 (T_max); the 5th cycle is run 2's first.
    assert.equal(s.run, 2, JSON.stringify(s.ended));
    assert.match(s.ended[0]!.reason, /T_max = 2 iterations|lambda reached 1|stalled|has not improved/);
    assert.ok(lambdas[0]! > 0 && lambdas[2]! > lambdas[0]!, `lambda rises within a run: ${lambdas.join(', ')}`);
    assert.ok(logs.some((l) => /^cycle 1 starts from SATLUTION_0: SMC run 1, iteration 1 \(lambda 0\.\d+, beta_t [\d.]+\): particle 1\/2, move 1\/1, kernel \S+; about \d+ evaluations left in this run$/.test(l)), logs.join('\n'));
    assert.ok(logs.some((l) => /: SMC run 1 ended: T_max = 2 iterations; SMC run 2, iteration 1/.test(l)), logs.join('\n'));
    assert.equal(logs.filter((l) => /^SMC: SATLUTION_\d+ (reward [\d.]+ vs [\d.]+, acceptance [\d.]+: (accepted|rejected)|failed its gates: rejected) \(kernel \S+\)$/.test(l)).length, 5, logs.join('\n'));
    // Every proposal carried its kernel to the agent; the kernels' evidence counts every move.
    assert.equal(hints.length, 5);
    assert.ok(hints.every((h) => /^(diff|rewrite)/.test(h)), hints.join(' | '));
    const evidence = Object.values(s.kernels).reduce((n, k) => n + k.a + k.b, 0);
    assert.ok(evidence > 8 && evidence <= 13, `4 fresh arms (8) plus 5 decayed updates: ${evidence}`);
    const dash = (await new DashboardSource(ws).build()).data;
    assert.equal(dash.strategy, 'smc');
    assert.equal(dash.smc!.run, 2);
    assert.equal(dash.smc!.particles.length, 2);
  });
});
