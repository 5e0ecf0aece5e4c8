import * as assert from 'node:assert/strict';
import { formatIssue, parseConfig, type ConfigIssue } from '../../src/core/config/load';
import { renderConfig } from '../../src/core/config/template';
import { configJsonSchema, DEFAULT_ISLANDS, DEFAULT_SMC } from '../../src/core/config/schema';
import { islandsConfig } from '../../src/core/strategy/islands';
import { smcConfig } from '../../src/core/strategy/smc';
import { strategyFor } from '../../src/core/strategy/registry';
import { DROP_BELOW, DROP_FULL_SHARE } from '../../src/core/decide/race';

const MIN = 'seeds:\n  - { name: kissat, source: ../kissat }\n';

function issues(text: string): ConfigIssue[] {
  const r = parseConfig(text);
  assert.equal(r.ok, false, 'expected the config to be rejected');
  return r.ok ? [] : r.issues;
}

describe('config: satlution.yaml', () => {
  it('fills documented defaults for a minimal file', () => {
    const r = parseConfig(MIN);
    assert.ok(r.ok);
    const c = r.config;
    assert.deepEqual(c.stages.smoke, { set: 'smoke', timeout_s: 10, mem_mb: 2048, runner: 'local', check_proofs: true });
    assert.equal(c.stages.perf.check_proofs, false);
    assert.deepEqual(c.evaluation, {
      proof_max_mb: 2048,
      build_timeout_s: 600,
      output_max_mb: 256,
      disk_max_mb: 1024,
      processes_max: 256,
      vacuous_gates: 'fail',
      decide_on: 'cpu',
      rank_by: 'par2',
      racing: { enabled: true, cap_factor: 3, cap_floor_s: 1, min_instances: 5 },
      families: { veto: true, tolerance_pct: 5, min_instances: 4, error: 0.2 },
      calibration: { auto: true, max_age_days: 30 },
      checker: { time_factor: 10, time_min_s: 10, mem_mb: 8192, proof_mb_per_s: 64, proof_min_mb: 64 },
    });
    assert.equal(c.stages.perf.timeout_s, 300);
    assert.deepEqual(c.runners, [{ name: 'local', kind: 'local' }]);
    assert.equal(c.approval, 'semi');
    assert.equal(c.strategy.name, 'champion-challenger');
    assert.equal(c.par2_visible_from_cycle, 0);
    assert.deepEqual(c.budgets, {});
    assert.equal(c.seeds[0]!.primary, false);
  });

  it('the file `init` writes is valid and matches the defaults', () => {
    const text = renderConfig({
      seeds: [{ name: 'kissat', source: '/src/kissat', primary: false }],
      benchmarks: { smoke: 'benchmarks/smoke', verify: 'benchmarks/verify', perf: 'b/perf' },
      jobs: 3,
    });
    const r = parseConfig(text);
    assert.ok(r.ok, r.ok ? '' : r.issues.map((i) => formatIssue(i)).join('\n'));
    const d = parseConfig(MIN);
    assert.ok(d.ok);
    assert.deepEqual(r.config.stages, d.config.stages);
    assert.deepEqual(r.config.runners, [{ name: 'local', kind: 'local', jobs: 3 }]);
    assert.equal(r.config.benchmarks.perf, 'b/perf');
  });

  it('names the key, the problem, an example and the line of a wrong value', () => {
    const [i, ...rest] = issues(MIN + 'stages:\n  smoke:\n    timeout_s: -5\n');
    assert.equal(rest.length, 0);
    assert.equal(i!.key, 'stages.smoke.timeout_s');
    assert.match(i!.message, /must be > 0; got number -5/);
    assert.equal(i!.example, 'timeout_s: 10');
    assert.equal(i!.range.line, 5);
    assert.equal(i!.range.column, 16);
    assert.equal(formatIssue(i!), 'satlution.yaml:5:16: stages.smoke.timeout_s: must be > 0; got number -5 (example: timeout_s: 10)');
  });

  it('checks the strategy settings against the strategy, and where a remote build can happen', () => {
    const keys = (text: string) => issues(MIN + text).map((i) => `${i.key}: ${i.message}`);
    assert.deepEqual(keys('strategy: { name: champion-challenger, proposals: 3 }\n'), [
      'strategy.proposals: only used by strategy sift (champion-challenger evaluates every proposal it makes: `lambda` per cycle)',
    ]);
    assert.deepEqual(keys('strategy: { name: sift }\n'), [
      'strategy.name: sift needs a judge model: set models.judge (or models.planner, which then also judges)',
    ]);
    assert.deepEqual(keys('strategy: { name: islands, smc: { particles: 4 } }\n'), ['strategy.smc: only used by strategy smc']);
    assert.match(
      keys('runners: [{name: local, kind: local}, {name: c, kind: slurm, workdir: /s, build: remote}]\n').join('\n'),
      /runners\.1\.build: build: remote builds on the login node: set login_host/,
    );
    assert.ok(
      parseConfig(
        MIN +
          'strategy: { name: smc, smc: { particles: 8, mh_steps: 2, max_evaluations: 64 } }\nrunners: [{name: local, kind: local}, {name: box, kind: ssh, host: lab, build: remote, jobs: 4}]\n',
      ).ok,
    );
  });

  it('suggests the intended key for a typo', () => {
    const [i] = issues(MIN + 'stages:\n  verify: { timout_s: 30 }\n');
    assert.equal(i!.key, 'stages.verify.timout_s');
    assert.match(i!.message, /did you mean "timeout_s"\?/);
    assert.equal(i!.example, 'timeout_s: 60');
    assert.equal(i!.range.line, 4);
  });

  it('reports a wrong type with what was found', () => {
    const [i] = issues(MIN + 'stages:\n  perf: { mem_mb: lots }\n');
    assert.equal(i!.key, 'stages.perf.mem_mb');
    assert.match(i!.message, /expected number, got "lots"/);
  });

  it('reports an enum value with the allowed ones', () => {
    const [i] = issues(MIN + 'approval: always\n');
    assert.equal(i!.message, 'must be one of "manual", "semi", "auto"; got "always"');
    assert.equal(i!.example, 'approval: semi');
    assert.equal(i!.range.line, 3);
  });

  it('requires seeds and says so at the top', () => {
    const [i] = issues('approval: auto\n');
    assert.equal(i!.key, 'seeds');
    assert.equal(i!.message, 'is required');
    assert.match(i!.example ?? '', /^seeds: /);
  });

  it('explains runner kinds and their required keys', () => {
    const bad = issues(MIN + 'runners:\n  - { name: local, kind: local }\n  - { name: box, kind: sshh }\n  - { name: c, kind: slurm }\n');
    const kind = bad.find((i) => i.key === 'runners.1.kind');
    assert.ok(kind, JSON.stringify(bad));
    assert.match(kind.message, /unknown kind "sshh"; expected one of "local", "ssh", "slurm"/);
    assert.equal(kind.range.line, 5);
    const workdir = bad.find((i) => i.key === 'runners.2.workdir');
    assert.ok(workdir);
    assert.equal(workdir.message, 'is required');
    assert.equal(workdir.example, 'workdir: /scratch/me/satlution');
  });

  it('checks that stages name existing runners and benchmark sets', () => {
    const bad = issues(MIN + 'stages:\n  perf: { runner: cluster, set: big }\n');
    assert.deepEqual(bad.map((i) => i.key).sort(), ['stages.perf.runner', 'stages.perf.set']);
    assert.match(bad.find((i) => i.key === 'stages.perf.runner')!.message, /known runners: local/);
  });

  it('needs a base URL for an OpenAI-compatible server', () => {
    const [i] = issues(MIN + 'models:\n  coder: { provider: openai-compatible, model: qwen }\n');
    assert.equal(i!.key, 'models.coder.base_url');
    assert.match(i!.message, /required when provider is openai-compatible/);
    assert.equal(i!.example, 'base_url: http://localhost:11434/v1');
  });

  it('rejects duplicate seeds and two primaries', () => {
    const bad = issues('seeds:\n  - { name: a, source: x, primary: true }\n  - { name: a, source: y, primary: true }\n');
    assert.deepEqual(bad.map((i) => i.key).sort(), ['seeds.1.name', 'seeds.1.primary']);
  });

  it('reports YAML syntax errors with their position', () => {
    const [i] = issues('seeds:\n  - name: a\n   source: b\n');
    assert.equal(i!.key, '(yaml)');
    assert.ok(i!.range.line >= 2);
  });

  it('rejects a file that is not a mapping', () => {
    const [i] = issues('- just\n- a list\n');
    assert.equal(i!.key, '(root)');
  });

  it('exports a JSON Schema with descriptions for editors', () => {
    const s = configJsonSchema() as { properties: Record<string, { description?: string }> };
    assert.match(s.properties.approval!.description!, /semi/);
    assert.ok(s.properties.seeds);
  });

  it("describes the race's drop threshold as the race applies it", () => {
    type Node = { properties?: Record<string, Node>; description?: string };
    const s = configJsonSchema() as Node;
    const text = s.properties!.evaluation!.properties!.racing!.properties!.enabled!.description!;
    assert.ok(text.includes(`under ${100 * DROP_BELOW}%`), text);
    // The description says "a quarter": it must change with DROP_FULL_SHARE.
    assert.equal(DROP_FULL_SHARE, 0.25);
    assert.ok(text.includes('before a quarter of the set has run'), text);
  });
});

describe('config: the strategy block, one variant per strategy', () => {
  const JUDGE = 'models: { judge: { provider: openai, model: judge-model } }\n';
  const parsed = (text: string) => {
    const r = parseConfig(MIN + JUDGE + text);
    assert.ok(r.ok, r.ok ? '' : r.issues.map((i) => formatIssue(i)).join('\n'));
    return r.config;
  };

  it('fills each default once, in the schema, and the strategies take them from the parsed config', () => {
    const none = parsed('');
    assert.deepEqual(none.strategy, { name: 'champion-challenger', lambda: 1, min_improvement_pct: 5, alpha: 0.05 });
    assert.deepEqual(parsed('strategy: {}\n').strategy, none.strategy);
    const sift = parsed('strategy: { name: sift }\n');
    assert.deepEqual(sift.strategy, { name: 'sift', proposals: 4, evaluate_top: 1, min_improvement_pct: 5, alpha: 0.05 });
    assert.equal(strategyFor(sift).proposals, 4);
    assert.equal(strategyFor(parsed('strategy: { name: sift, proposals: 3, evaluate_top: 2 }\n')).proposals, 3);
    const islands = parsed('strategy: { name: islands }\n');
    assert.deepEqual(islands.strategy, { name: 'islands', islands: DEFAULT_ISLANDS, min_improvement_pct: 5, alpha: 0.05 });
    assert.deepEqual(DEFAULT_ISLANDS, { count: 5, population: 70, archive: 25, bins: 5, migration_interval: 10, exploitation: 0.7 });
    assert.deepEqual(islandsConfig(parsed('strategy: { name: islands, islands: { count: 2 } }\n')), { ...DEFAULT_ISLANDS, count: 2 });
    const smc = parsed('strategy: { name: smc, smc: { particles: 8 } }\n');
    assert.deepEqual(smcConfig(smc), { ...DEFAULT_SMC, particles: 8 });
    assert.deepEqual(DEFAULT_SMC, { particles: 4, mh_steps: 2, beta: 40, kappa: 0.9, min_iterations: 3, max_iterations: 8, stall: 3 });
    // The dashboard still reads a database another strategy left: the schema's defaults.
    assert.deepEqual(islandsConfig(none), DEFAULT_ISLANDS);
    assert.deepEqual(smcConfig(none), DEFAULT_SMC);
  });

  it('gives each strategy its hooks, so the engine never checks a name', () => {
    const of = (name: string) => strategyFor(parsed(`strategy: { name: ${name} }\n`));
    assert.deepEqual(
      ['champion-challenger', 'sift', 'islands', 'smc'].map((n) => {
        const s = of(n);
        return [s.name, s.proposals, s.screens, s.needsJudge, typeof s.measured, typeof s.parent];
      }),
      [
        ['champion-challenger', 1, false, false, 'undefined', 'undefined'],
        ['sift', 4, true, true, 'function', 'undefined'],
        ['islands', 1, true, false, 'undefined', 'function'],
        ['smc', 1, true, false, 'undefined', 'function'],
      ],
    );
  });

  it("still refuses an old file with another strategy's keys, saying whose they are", () => {
    const keys = (text: string) => issues(MIN + JUDGE + text).map((i) => `${i.key}: ${i.message}`);
    assert.deepEqual(keys('strategy: { name: champion-challenger, proposals: 3 }\n'), [
      'strategy.proposals: only used by strategy sift (champion-challenger evaluates every proposal it makes: `lambda` per cycle)',
    ]);
    assert.deepEqual(keys('strategy: { evaluate_top: 1, judge_rubric: "Prefer small changes, please." }\n'), [
      'strategy.evaluate_top: only used by strategy sift (champion-challenger evaluates every proposal it makes: `lambda` per cycle)',
      'strategy.judge_rubric: only used by strategy sift (champion-challenger evaluates every proposal it makes: `lambda` per cycle)',
    ]);
    assert.deepEqual(keys('strategy: { name: sift, islands: { count: 2 } }\n'), ['strategy.islands: only used by strategy islands']);
    assert.deepEqual(keys('strategy: { name: champion-challenger, smc: { particles: 4 } }\n'), ['strategy.smc: only used by strategy smc']);
    assert.deepEqual(keys('strategy: { name: sift, proposals: 2, evaluate_top: 3 }\n'), [
      'strategy.evaluate_top: cannot evaluate more than the 2 proposals made per cycle',
    ]);
    assert.deepEqual(keys('strategy: { name: hillclimb }\n'), [
      'strategy.name: must be one of "champion-challenger", "sift", "islands", "smc"; got "hillclimb"',
    ]);
    const [typo] = issues(MIN + JUDGE + 'strategy: { name: sift, propsals: 2 }\n');
    assert.equal(typo!.key, 'strategy.propsals');
    assert.match(typo!.message, /did you mean "proposals"\?/);
    assert.equal(typo!.example, 'proposals: 4');
  });

  it('exports each strategy as a variant of the JSON Schema, with descriptions', () => {
    const s = configJsonSchema() as {
      properties: { strategy: { oneOf: { properties: Record<string, { const?: string; description?: string; default?: unknown }>; required?: string[] }[] } };
    };
    const variants = s.properties.strategy.oneOf;
    assert.deepEqual(
      variants.map((v) => v.properties.name!.const),
      ['champion-challenger', 'sift', 'islands', 'smc'],
    );
    assert.equal(variants[0]!.required, undefined, 'champion-challenger needs no name');
    for (const v of variants) for (const [k, p] of Object.entries(v.properties)) assert.ok(p.description, `${v.properties.name!.const}.${k} has a description`);
    assert.equal(variants[1]!.properties.proposals!.default, 4);
  });
});
