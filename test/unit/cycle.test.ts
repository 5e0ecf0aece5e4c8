// The evolution cycle end to end on a real solver source, with a scripted agent: plan, approval,
// code (through the sandboxed tools and a real build), every gate, RESULTS.md with the paired test,
// the champion/challenger decision; and resuming after a crash.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runTool } from '../../src/core/agents/coderTools';
import { mutate, parseOptions, tunerAgent } from '../../src/core/agents/tuner';
import { loadConfig } from '../../src/core/config/load';
import { runCycle, type EvolutionAgent } from '../../src/core/cycle/engine';
import { readCycle } from '../../src/core/store/cycleState';
import { planted3Sat } from '../../src/core/instances/generators';
import { prng } from '../../src/core/stats/prng';
import { silentLogger } from '../../src/core/ports';
import { CandidateStore } from '../../src/core/store/candidates';
import { initWorkspace } from '../../src/core/workspace/initWorkspace';
import { LlmTestServer } from '../fixtures/llmServer';
import { CLI, FIXTURES, RULES, tempDir, write } from './helpers';
import { tinysatCycleWorkspace } from './cycleWorkspace';
import { cpuSpin, withCpuSpin, writeOptsat } from '../fixtures/optsat';

/** A slow start: 0.15 s of CPU time on any machine, far out of timing noise. */
const DELAY = cpuSpin('150000000');

async function workspace(approval: 'auto' | 'semi' = 'auto'): Promise<string> {
  const ws = await tinysatCycleWorkspace({ approval, perf: 8, perfSeed: 50 });
  // A slow champion, so that a challenger can really be faster.
  const src = path.join(ws, 'SATLUTION_0', 'tinysat.c');
  fs.writeFileSync(src, withCpuSpin(fs.readFileSync(src, 'utf8'), DELAY));
  return ws;
}

/** An agent that removes the champion's slow start through the coder's own tools. */
function speedUpAgent(counts = { plan: 0, code: 0 }, crashOnFirstCode = false): EvolutionAgent {
  return {
    name: 'scripted',
    async plan({ candidate }) {
      counts.plan++;
      return {
        title: 'remove the slow start',
        hypothesis: `# ${candidate}: remove the slow start\n\n## Change\nDelete the spin loop in main().\n\n## Rationale\nIt wastes time on every run.\n\n## Expected effect\nEvery instance faster.\n`,
      };
    },
    async code({ host }) {
      counts.code++;
      if (crashOnFirstCode && counts.code === 1) throw new Error('simulated crash in the middle of coding');
      const edit = await runTool('edit_file', JSON.stringify({ path: 'tinysat.c', search: DELAY, replace: '' }), host);
      assert.equal(edit.isError, false, edit.content);
      const b = await host.build();
      assert.equal(b.ok, true, b.text);
      return { finished: true, detail: 'done' };
    },
  };
}

describe('evolution cycle (champion/challenger)', function () {
  this.timeout(180000);

  it('plans, codes, passes every gate, measures, writes RESULTS.md and crowns a faster challenger', async () => {
    const ws = await workspace();
    const events: string[] = [];
    const s = await runCycle({
      ws,
      config: await loadConfig(ws),
      agent: speedUpAgent(),
      approver: { confirm: async () => true },
      log: silentLogger,
      jobs: 2,
      onEvent: (e) => e.type === 'step' && events.push(e.step),
    });
    assert.equal(s.step, 'done');
    assert.equal(s.champion_changed, true, s.outcome ?? '');
    assert.match(
      s.outcome!,
      /SATLUTION_1 is the new champion \(side by side on (CPU|wall) time: PAR-2 \d+\.\d+ -> \d+\.\d+ s, \d+\.\d% faster \(at least \d+\.\d% at 80% confidence\)( with \d+ instances? run again by both, up to \d+ times each \(near the limit and the longest; the mean of the runs\))?, p [=<] [\d.e-]+, n = 8; over the \d+\.\d% margin/,
    );
    for (const st of ['plan', 'approve', 'code', 'evaluate', 'analyze', 'decide', 'done']) assert.ok(events.includes(st), st);
    const { index } = await new CandidateStore(ws).load();
    assert.equal(index.champion, 1);
    assert.equal(index.candidates.find((c) => c.id === 1)!.status, 'evaluated');
    const results = fs.readFileSync(path.join(ws, 'SATLUTION_1', 'RESULTS.md'), 'utf8');
    assert.match(results, /Verdict: \*\*pass\*\*/);
    assert.match(results, /\| comply \| pass/);
    assert.match(results, /Wilcoxon signed-rank: n = 8, p = .* Verdict: \*\*faster than the champion\*\*/);
    assert.match(fs.readFileSync(path.join(ws, 'SATLUTION_1', 'HYPOTHESIS.md'), 'utf8'), /remove the slow start/);
    assert.ok(fs.existsSync(path.join(ws, '.satlution', 'evals', 'SATLUTION_0.json')), 'the champion was measured too');
    // The verdict came from the race: the challenger beside the champion in one session, no noise band needed.
    assert.match(results, /## Against the champion, side by side \(8 instances, one session\)/);
    assert.match(results, /Instance by instance: \d+\.\d% faster as a geometric mean of the time ratios\./);
    assert.match(
      results,
      /The promotion test \(ranked by PAR-2; one-sided, expected PAR-2 on this set against the run noise of [\d.]+% per run\): p = [\d.e-]+ against the promotion level 0\.0050; its parts: PAR-2 lower p = [\d.e-]+; for the report, faster instance by instance \(geometric mean, sign flips\) p = [\d.e-]+\./,
    );
    assert.match(
      results,
      /Promotion needs a significant gain of at least 5\.0% in PAR-2 \(min_improvement_pct 5%; two identical solvers pass this rule in at most 0\.5% of decisions\)/,
    );
    const duels = fs.readdirSync(path.join(ws, '.satlution', 'duels')).map(
      (f) =>
        JSON.parse(fs.readFileSync(path.join(ws, '.satlution', 'duels', f), 'utf8')) as {
          purpose: string;
          pairs: { order: string }[];
          race?: { outcome: string };
        },
    );
    assert.deepEqual(
      duels.map((d) => [d.purpose, d.race?.outcome]),
      [['decision', 'survived']],
    );
    assert.deepEqual([...new Set(duels[0]!.pairs.map((p) => p.order))].sort(), ['AB', 'BA'], 'the order alternates which solver goes first');
    assert.ok(!fs.existsSync(path.join(ws, '.satlution', 'calibration.json')), 'no calibration');
  });

  it('resumes at the step it stopped in after a crash', async () => {
    const ws = await workspace();
    const counts = { plan: 0, code: 0 };
    const agent = speedUpAgent(counts, true);
    const config = await loadConfig(ws);
    await assert.rejects(runCycle({ ws, config, agent, approver: { confirm: async () => true }, log: silentLogger, jobs: 2 }), /simulated crash/);
    assert.equal((await readCycle(ws))!.step, 'code');
    const s = await runCycle({ ws, config, agent, approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });
    assert.equal(s.step, 'done');
    assert.equal(s.cycle, 1);
    assert.deepEqual(counts, { plan: 1, code: 2 }, 'the plan was not made again');
    assert.deepEqual(
      (await new CandidateStore(ws).load()).index.candidates.map((c) => c.dir),
      ['SATLUTION_0', 'SATLUTION_1'],
    );
  });

  it('a rejected plan discards the candidate; a coder that does not finish fails it', async () => {
    const ws = await workspace('semi');
    const config = await loadConfig(ws);
    const asked: string[] = [];
    const s1 = await runCycle({ ws, config, agent: speedUpAgent(), approver: { confirm: async (q) => (asked.push(q), false) }, log: silentLogger });
    assert.deepEqual(asked, ['Approve the plan for SATLUTION_1: remove the slow start?']);
    assert.equal(s1.outcome, 'the plan was rejected');
    const quitter: EvolutionAgent = { ...speedUpAgent(), code: async () => ({ finished: false, detail: 'iteration cap' }) };
    const s2 = await runCycle({ ws, config, agent: quitter, approver: { confirm: async () => true }, log: silentLogger });
    assert.equal(s2.cycle, 2);
    assert.equal(s2.outcome, 'coding did not finish: iteration cap');
    const { index } = await new CandidateStore(ws).load();
    assert.deepEqual(
      index.candidates.map((c) => [c.dir, c.status]),
      [
        ['SATLUTION_0', 'seed'],
        ['SATLUTION_1', 'discarded'],
        ['SATLUTION_2', 'failed'],
      ],
    );
    assert.equal(index.champion, 0);
  });
});

describe('the family rule in a real cycle', function () {
  this.timeout(300000);

  it('keeps out a challenger faster overall but slower on one family, and names the family in the outcome and RESULTS.md', async () => {
    // 8 instances of 30 variables ("big") and 4 of 20 ("small"); the champion starts slowly on all of them.
    const ws = await tinysatCycleWorkspace({ approval: 'auto', perf: 0, perfSeed: 0 });
    const perf = path.join(ws, 'benchmarks', 'perf');
    const rows = ['instance,family,expected'];
    for (let i = 0; i < 8; i++) {
      write(path.join(perf, `big${i}.cnf`), planted3Sat(30, 4.0, 300 + i));
      rows.push(`big${i}.cnf,big,SAT`);
    }
    for (let i = 0; i < 4; i++) {
      write(path.join(perf, `small${i}.cnf`), planted3Sat(20, 4.0, 400 + i));
      rows.push(`small${i}.cnf,small,SAT`);
    }
    write(path.join(perf, 'meta.csv'), rows.join('\n') + '\n');
    const src = path.join(ws, 'SATLUTION_0', 'tinysat.c');
    fs.writeFileSync(src, withCpuSpin(fs.readFileSync(src, 'utf8'), DELAY));
    // The specialist: no slow start, but half as slow again as the champion on the small formulas.
    const SLOWER = cpuSpin('225000000').replace(/^ {2}/, '  if (nvars == 20) ');
    const specialist: EvolutionAgent = {
      ...speedUpAgent(),
      async code({ host }) {
        for (const [search, replace] of [
          [DELAY, ''],
          ['  starts[nclauses] = used;\n', `  starts[nclauses] = used;\n${SLOWER}`],
        ] as const) {
          const edit = await runTool('edit_file', JSON.stringify({ path: 'tinysat.c', search, replace }), host);
          assert.equal(edit.isError, false, edit.content);
        }
        const b = await host.build();
        assert.equal(b.ok, true, b.text);
        return { finished: true, detail: 'done' };
      },
    };
    const s = await runCycle({ ws, config: await loadConfig(ws), agent: specialist, approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });
    assert.equal(s.step, 'done');
    assert.equal(s.champion_changed, false, s.outcome ?? '');
    assert.match(
      s.outcome!,
      /^SATLUTION_0 stays champion \(\d+\.\d% faster side by side over the 5\.0% margin, but slower on a family: small \d+\.\d% slower \(4 instances, PAR-2 [\d.]+ -> [\d.]+ s\); significantly and more than the 5% a family may lose/,
    );
    assert.equal((await new CandidateStore(ws).load()).index.champion, 0);
    const results = fs.readFileSync(path.join(ws, 'SATLUTION_1', 'RESULTS.md'), 'utf8');
    assert.match(results, /^\*\*By family:\*\* small \+\d+\.\d% \(slower beyond 5%\), big −?-?\d+\.\d%\.$/m);
    assert.match(results, /^\| small \| 4 \| [\d.]+ s \| [\d.]+ s \| \+\d+\.\d% \| 4 \/ 4 \| \*\*slower beyond 5%\*\* \|$/m);
    // The duel keeps each pair's family and the figures, for the dashboard and for a decision recomputed from it.
    const dir = path.join(ws, '.satlution', 'duels');
    const duel = JSON.parse(fs.readFileSync(path.join(dir, fs.readdirSync(dir)[0]!), 'utf8')) as {
      pairs: { instance: string; family: string }[];
      comparison: { families: { family: string; slower: boolean }[] };
    };
    assert.deepEqual(new Set(duel.pairs.map((p) => `${p.instance.replace(/\d+\.cnf$/, '')}:${p.family}`)), new Set(['big:big', 'small:small']));
    assert.deepEqual(
      duel.comparison.families.map((f) => [f.family, f.slower]),
      [
        ['small', true],
        ['big', false],
      ],
    );
  });

  it('a challenger the race drops early gets no family figures: a few instances of each family are noise, not findings', async () => {
    const ws = await tinysatCycleWorkspace({ approval: 'auto', perf: 0, perfSeed: 0 });
    const perf = path.join(ws, 'benchmarks', 'perf');
    const rows = ['instance,family,expected'];
    for (let i = 0; i < 12; i++) {
      write(path.join(perf, `f${i}.cnf`), planted3Sat(30, 4.0, 500 + i));
      rows.push(`f${i}.cnf,${i % 2 ? 'odd' : 'even'},SAT`);
    }
    write(path.join(perf, 'meta.csv'), rows.join('\n') + '\n');
    const src = path.join(ws, 'SATLUTION_0', 'tinysat.c');
    fs.writeFileSync(src, withCpuSpin(fs.readFileSync(src, 'utf8'), ''));
    // 0.4 s of CPU more on every instance, where the champion takes milliseconds: the first look drops it.
    const slower: EvolutionAgent = {
      ...speedUpAgent(),
      async code({ host }) {
        const edit = await runTool(
          'edit_file',
          JSON.stringify({ path: 'tinysat.c', search: '  starts[nclauses] = used;\n', replace: `  starts[nclauses] = used;\n${cpuSpin('400000000')}` }),
          host,
        );
        assert.equal(edit.isError, false, edit.content);
        const b = await host.build();
        assert.equal(b.ok, true, b.text);
        return { finished: true, detail: 'done' };
      },
    };
    const s = await runCycle({ ws, config: await loadConfig(ws), agent: slower, approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });
    assert.equal(s.champion_changed, false);
    const dir = path.join(ws, '.satlution', 'duels');
    const duel = JSON.parse(fs.readFileSync(path.join(dir, fs.readdirSync(dir)[0]!), 'utf8')) as {
      pairs: { family: string }[];
      race: { outcome: string; ran: number; of: number };
      comparison: { families?: unknown };
    };
    assert.equal(duel.race.outcome, 'rejected early', JSON.stringify(duel.race));
    assert.ok(duel.race.ran < duel.race.of);
    assert.deepEqual(new Set(duel.pairs.map((p) => p.family)), new Set(['even', 'odd']), 'its pairs have two families');
    assert.equal(duel.comparison.families, undefined, 'and no family figures');
    assert.doesNotMatch(fs.readFileSync(path.join(ws, 'SATLUTION_1', 'RESULTS.md'), 'utf8'), /By family/);
  });
});

describe('satlution cycle with the real openai client against a local model server', function () {
  this.timeout(180000);

  it('the model plans, edits a real solver, hits a compile error, fixes it, passes the gates; the cycle decides', async () => {
    const server = new LlmTestServer();
    await server.start();
    try {
      const ws = await workspace('semi');
      const cfg = path.join(ws, 'satlution.yaml');
      const models = `models:\n  planner: { provider: openai-compatible, model: scripted-planner, base_url: ${server.url}/v1 }\n  coder: { provider: openai-compatible, model: scripted-coder, base_url: ${server.url}/v1 }\n`;
      fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace('models: {}\n', models));
      const plan = {
        title: 'Remove the slow start',
        change: 'Delete the spin loop at the top of main() in tinysat.c.',
        rationale: 'It burns time on every run and decides nothing.',
        expected_effect: { sat: 'faster', unsat: 'faster', par2: 'lower on every instance' },
        risks: 'None: the loop has no effect on the search.',
        tasks: ['Delete the spin loop in main().', 'Build, run smoke, finish.'],
      };
      const tc = (name: string, args: unknown) => ({
        kind: 'tool' as const,
        name,
        args: JSON.stringify(args),
        id: `call_${name}_${Math.random().toString(36).slice(2, 6)}`,
      });
      server.queue(
        tc('read_file', { path: 'SATLUTION_0/tinysat.c', start_line: 40, end_line: 50 }),
        tc('submit_plan', plan),
        tc('edit_file', { path: 'tinysat.c', search: DELAY, replace: '  int unused = ;\n' }),
        tc('build', {}),
        tc('edit_file', { path: 'tinysat.c', search: '  int unused = ;\n', replace: '' }),
        tc('build', {}),
        tc('finish', { changelog: '## SATLUTION_1\n- tinysat.c: removed the spin loop at the top of main().' }),
      );
      const child = spawn(process.execPath, [CLI, 'cycle', '--yes', '--dir', ws], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d));
      child.stderr.on('data', (d: Buffer) => (err += d));
      const code = await new Promise((r) => child.once('exit', r));
      assert.equal(code, 0, out + err);
      assert.match(out, /cycle 1: SATLUTION_1 is the new champion/);
      assert.equal(server.requests.length, 7);
      // the planner read the champion through the workspace-rooted, read-only sandbox
      assert.match(JSON.stringify(server.requests[1]!.body.messages), /int main\(int argc, char \*\*argv\)/);
      // the coder saw the real compile error in its tool result
      const afterBuild = JSON.stringify(server.requests[4]!.body.messages);
      assert.match(afterBuild, /tinysat\.c:\d+: expected expression/);
      const dir = path.join(ws, 'SATLUTION_1');
      assert.match(fs.readFileSync(path.join(dir, 'HYPOTHESIS.md'), 'utf8'), /^# SATLUTION_1: Remove the slow start/);
      assert.match(fs.readFileSync(path.join(dir, 'CHANGELOG.md'), 'utf8'), /removed the spin loop/);
      assert.match(fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8'), /faster than the champion/);
      assert.doesNotMatch(fs.readFileSync(path.join(dir, 'tinysat.c'), 'utf8'), /spin/);
      const usage = fs
        .readFileSync(path.join(ws, '.satlution', 'usage.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { role: string; cycle: number });
      assert.deepEqual([...new Set(usage.map((u) => `${u.role}:${u.cycle}`))], ['planner:1', 'coder:1']);
      assert.ok(fs.existsSync(path.join(ws, '.satlution', 'transcripts', 'cycle-1-coder.jsonl')));
    } finally {
      await server.close();
    }
  });
});

describe('the offline tuner', function () {
  this.timeout(240000);

  it('parses kissat-style options and mutates within their ranges', () => {
    const opts = parseOptions(
      '#define OPTIONS \\\n  OPTION (chrono, 1, 0, 1, "chrono") \\\n  OPTION (reduceint, 1e3, 2, 1e5, "base") \\\n  OPTION (stable, STABLE_DEFAULT, 0, 2, "macro") \\\n',
    );
    assert.deepEqual(
      opts.map((o) => [o.name, o.value, o.low, o.high]),
      [
        ['chrono', 1, 0, 1],
        ['reduceint', 1000, 2, 100000],
      ],
      'a macro without a #define is not tunable',
    );
    // kissat 4 names some defaults by macros: the unconditional #define counts (a plain build), not the #ifdef SAT/UNSAT ones.
    const guarded = parseOptions(
      '#ifndef _options_h\n#define _options_h\n#define OPTIONS \\\n  OPTION (stable, STABLE_DEFAULT, 0, 2, "macro") \\\n  OPTION (target, TARGET_DEFAULT, 0, 2, "macro")\n#define TARGET_SAT 2\n#define TARGET_DEFAULT 1\n#define STABLE_DEFAULT 1\n#ifdef SAT\n#undef TARGET_DEFAULT\n#define TARGET_DEFAULT TARGET_SAT\n#endif\n#ifdef UNSAT\n#define STABLE_DEFAULT 0\n#endif\n#endif\n',
    );
    assert.deepEqual(
      guarded.map((o) => [o.name, o.text, o.value]),
      [
        ['stable', 'STABLE_DEFAULT', 1],
        ['target', 'TARGET_DEFAULT', 1],
      ],
    );
    const rnd = prng(3);
    for (let i = 0; i < 50; i++) {
      assert.equal(mutate(opts[0]!, rnd), 0);
      const v = mutate(opts[1]!, rnd);
      assert.ok(v >= 2 && v <= 100000 && v !== 1000 && [2, 4, 10].some((f) => v === 1000 * f || v === Math.round(1000 / f) || v === 100000), String(v));
    }
  });

  it('finds a faster setting of an option that really changes PAR-2, through the same gates and records', async () => {
    // optsat: tinysat whose start-up spin loop length is an option in src/options.h.
    const seed = tempDir();
    writeOptsat(seed, path.join(FIXTURES, 'seeds', 'tinysat', 'tinysat.c'), { delay: 400000000, inert: ['unused'] });
    const ws = tempDir();
    await initWorkspace({
      dir: ws,
      seeds: [{ name: 'optsat', source: seed }],
      defaultRulesDir: RULES,
      approver: { confirm: async () => true },
      log: silentLogger,
    });
    const cfg = path.join(ws, 'satlution.yaml');
    fs.writeFileSync(
      cfg,
      fs
        .readFileSync(cfg, 'utf8')
        .replace(/check_proofs: true/g, 'check_proofs: false')
        .replace('approval: semi', 'approval: auto')
        .replace(/timeout_s: \d+/g, 'timeout_s: 20'),
    );
    fs.copyFileSync(path.join(FIXTURES, 'cnf', 'sat-small.cnf'), path.join(ws, 'benchmarks', 'smoke', 'sat-small.cnf'));
    // A verify set with a known answer: an empty one would fail its gate (evaluation.vacuous_gates).
    fs.copyFileSync(path.join(FIXTURES, 'cnf', 'sat-small.cnf'), path.join(ws, 'benchmarks', 'verify', 'sat-small.cnf'));
    for (let i = 0; i < 8; i++) write(path.join(ws, 'benchmarks', 'perf', `p${i}.cnf`), planted3Sat(30, 4.0, 70 + i));
    const config = await loadConfig(ws);
    const outcomes: string[] = [];
    for (let c = 0; c < 4; c++)
      outcomes.push(
        (await runCycle({ ws, config, agent: tunerAgent({ only: ['delay'] }), approver: { confirm: async () => true }, log: silentLogger, jobs: 2 })).outcome ??
          '',
      );
    const { index } = await new CandidateStore(ws).load();
    assert.ok(index.champion !== 0, `no tuned candidate won: ${outcomes.join(' | ')}`);
    const champ = fs.readFileSync(path.join(ws, `SATLUTION_${index.champion}`, 'src', 'options.h'), 'utf8');
    const delay = Number(/OPTION \(delay, (\d+),/.exec(champ)?.[1]);
    assert.ok(delay < 400000000, `the champion's delay is ${delay}`);
    const hyp = fs.readFileSync(path.join(ws, `SATLUTION_${index.champion}`, 'HYPOTHESIS.md'), 'utf8');
    assert.match(hyp, /tune delay \d+ -> \d+/);
    assert.match(fs.readFileSync(path.join(ws, `SATLUTION_${index.champion}`, 'RESULTS.md'), 'utf8'), /faster than the champion/);
  });
});

describe('the cycle resumes after a crash at any step', function () {
  this.timeout(300000);
  for (const at of ['plan', 'approve', 'code', 'evaluate', 'analyze', 'decide'] as const)
    it(`crash right after entering "${at}"`, async () => {
      const ws = await workspace();
      const config = await loadConfig(ws);
      const counts = { plan: 0, code: 0 };
      const agent = speedUpAgent(counts);
      let crashed = false;
      const onEvent = (e: { type: string; step?: string }) => {
        if (e.type === 'step' && e.step === at && !crashed) {
          crashed = true;
          throw new Error(`simulated crash at ${at}`);
        }
      };
      await assert.rejects(
        runCycle({ ws, config, agent, approver: { confirm: async () => true }, log: silentLogger, jobs: 2, onEvent }),
        new RegExp(`simulated crash at ${at}`),
      );
      assert.equal((await readCycle(ws))!.step, at, 'the step was saved before the crash');
      const s = await runCycle({ ws, config, agent, approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });
      assert.equal(s.step, 'done');
      assert.equal(s.cycle, 1);
      assert.equal(s.champion_changed, true, s.outcome ?? '');
      assert.ok(counts.plan <= 2 && counts.code <= 2, JSON.stringify(counts));
      assert.deepEqual(
        (await new CandidateStore(ws).load()).index.candidates.map((c) => c.dir),
        ['SATLUTION_0', 'SATLUTION_1'],
        'no second candidate',
      );
    });
});
