// Verdicts that noise and drift cannot fool, attacked for real: a champion measured while the machine was
// busy against challengers that behave exactly like it (the binaries differ, so nothing is reused), a
// slower challenger that racing must stop early, and the calibrate / compare --measure commands.
import { DROP_BELOW } from '../../src/core/decide/race';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTool } from '../../src/core/agents/coderTools';
import { tunerAgent } from '../../src/core/agents/tuner';
import { loadConfig } from '../../src/core/config/load';
import { runCycle, type EvolutionAgent } from '../../src/core/cycle/engine';
import { buildDashboard } from '../../src/core/dashboard/dashboardData';
import { readCalibration } from '../../src/core/decide/calibration';
import { differentLoad } from '../../src/core/decide/comparison';
import { driftOf, readDrift } from '../../src/core/decide/drift';
import { readDuels, type DuelDoc } from '../../src/core/decide/duels';
import { EvalStore } from '../../src/core/eval/evalStore';
import { evaluateSolver } from '../../src/core/eval/service';
import { silentLogger } from '../../src/core/ports';
import type { InstanceResult } from '../../src/core/run/result';
import { CandidateStore } from '../../src/core/store/candidates';
import { CLI, write } from './helpers';
import { optsatWorkspace } from './optsatWorkspace';

/** optsat (tinysat with a start-up busy loop, `delay`) with an option it never reads (`unused`). */
const optsat = (o: { delay: number; perf: number; yaml?: (y: string) => string }) =>
  optsatWorkspace({ perf: o.perf, perfSeed: 90, delay: o.delay, inert: ['unused'], ...(o.yaml ? { edit: o.yaml } : {}) });

/**
 * Busy loops, two per core: the machine "while a build runs in another window". Each in a session of its
 * own, as a separate program would be: Linux's autogroup scheduling shares the CPU between sessions, so
 * loops in the test's own session would barely slow a solver run (which bwrap starts in a new session).
 */
function load(n = 2 * os.cpus().length): { stop: () => void } {
  const procs: ChildProcess[] = Array.from({ length: n }, () => spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore', detached: true }));
  return { stop: () => procs.forEach((p) => p.kill('SIGKILL')) };
}

/** One side of a kept duel as run results: what drift.ts compared with the champion's stored evaluation. */
function duelSide(d: DuelDoc, side: 'a' | 'b'): InstanceResult[] {
  return d.pairs.map((p) => ({
    instance: p.instance,
    family: null,
    expected: null,
    expected_from: 'none',
    answer: null,
    status: p[side].status === 'solved' ? 'solved' : 'timeout',
    time_s: p[side].time_s,
    cpu_s: p[side].cpu_s,
    mem_mb: null,
    exit_code: null,
    signal: null,
    check: { kind: 'none', ok: null, time_s: 0, detail: '' },
    detail: '',
  }));
}

/** An agent that multiplies the start-up delay: a challenger that is really slower. */
function slowDownAgent(factor: number): EvolutionAgent {
  return {
    name: 'scripted',
    async plan({ candidate }) {
      return {
        title: 'a longer start-up loop',
        hypothesis: `# ${candidate}: a longer start-up loop\n\n## Change\nMultiply delay by ${factor}.\n\n## Rationale\nA slower challenger, for racing to stop.\n\n## Expected effect\nEvery instance slower.\n`,
      };
    },
    async code({ host, candidateDir }) {
      const h = fs.readFileSync(path.join(candidateDir, 'src', 'options.h'), 'utf8');
      const now = /OPTION \(delay, (\d+),/.exec(h)![1]!;
      const edit = await runTool(
        'edit_file',
        JSON.stringify({ path: 'src/options.h', search: `OPTION (delay, ${now},`, replace: `OPTION (delay, ${Number(now) * factor},` }),
        host,
      );
      assert.equal(edit.isError, false, edit.content);
      assert.equal((await host.build()).ok, true);
      return { finished: true, detail: 'done' };
    },
  };
}

describe('verdicts that noise and drift cannot fool', function () {
  this.timeout(900000);

  it('a champion measured under load is not beaten by challengers that behave exactly like it (wall time, racing on)', async () => {
    // decide on wall time: the basis a load moves most, so the duel (not CPU accounting) has to stop the attack.
    const ws = await optsat({ delay: 150_000_000, perf: 12, yaml: (y) => y.replace('decide_on: cpu', 'decide_on: wall') });
    const config = await loadConfig(ws);
    assert.equal(config.evaluation.decide_on, 'wall');
    // The trap: the champion's reference measurement is taken while two busy loops share the two cores.
    const busy = load();
    try {
      const r = await evaluateSolver({
        ws,
        config,
        solverDir: path.join(ws, 'SATLUTION_0'),
        overrides: { stage: 'all', jobs: 2 },
        tiers: { reference: true },
        runnerEnv: { workerFile: '' },
      });
      assert.equal(r.verdict, 'pass', JSON.stringify(r.gates.map((g) => g.detail)));
    } finally {
      busy.stop();
    }
    const outcomes: string[] = [];
    for (let c = 0; c < 3; c++)
      outcomes.push(
        (await runCycle({ ws, config, agent: tunerAgent({ only: ['unused'] }), approver: { confirm: async () => true }, log: silentLogger, jobs: 2 }))
          .outcome ?? '',
      );
    const { index } = await new CandidateStore(ws).load();
    assert.equal(index.champion, 0, `an identical challenger was promoted: ${outcomes.join(' | ')}`);
    for (const o of outcomes) assert.match(o, /SATLUTION_0 stays champion/);
    // The trap was real: the stored champion times were inflated by the load, as its runs in the (quiet) races show.
    const champion = (await new EvalStore(ws).get(0))!;
    const raced = (await readDuels(ws)).filter((d) => d.purpose === 'decision');
    assert.ok(raced.length >= 3, `one race per cycle: ${raced.length} decision duels`);
    const quiet = raced[0]!.pairs;
    const stored = quiet.reduce((t, p) => t + champion.instances.find((r) => r.instance === p.instance)!.time_s, 0);
    const now = quiet.reduce((t, p) => t + p.a.time_s, 0);
    assert.ok(stored > 1.3 * now, `loaded ${stored} s vs quiet ${now} s on the race's ${quiet.length} instances`);
    // The loaded reference is not taken for the machine's drift between sessions (drift.ts): other load is not drift.
    assert.equal((await readDrift(ws))?.observations.length ?? 0, 0, JSON.stringify(await readDrift(ws)));
    // Each challenger met the champion side by side in its race; none was called faster there.
    for (const d of raced) assert.notEqual(d.comparison.verdict, 'B faster', JSON.stringify(d.comparison));
  });

  it('racing stops a slower challenger early, with capped runs, and says so in RESULTS.md and the outcome', async () => {
    // Runs of a tenth of a second: caps below the default 1 s floor. The challenger is 20x slower, so its
    // runs meet their caps (3x the champion's stored time) and, counted at the cap, are still clearly
    // slower than the champion's runs beside them, however other load moved the champion's times.
    const ws = await optsat({ delay: 100_000_000, perf: 12, yaml: (y) => y.replace('decide_on: cpu', 'decide_on: cpu\n  racing: { cap_floor_s: 0.05 }') });
    const config = await loadConfig(ws);
    assert.equal(config.evaluation.racing.cap_floor_s, 0.05);
    const s = await runCycle({ ws, config, agent: slowDownAgent(20), approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });
    assert.match(
      s.outcome ?? '',
      /SATLUTION_0 stays champion \(SATLUTION_1 rejected early by racing after \d+ of 12 instances: it cannot pass the promotion test: after \d+ of 12 instances it is \d+\.\d% slower than the champion/,
    );
    const doc = (await new EvalStore(ws).get(1))!;
    assert.equal(doc.verdict, 'pass');
    assert.equal(doc.race?.outcome, 'rejected early');
    assert.ok(doc.race!.ran < 12, `ran ${doc.race!.ran}`);
    assert.ok(doc.race!.capped > 0, 'the slower runs hit their cap');
    assert.ok(doc.race!.session, 'the race kept its session');
    // The futility rule's evidence, kept and shown: its chance to pass at the end and the chance the race drops under.
    assert.match(s.outcome ?? '', /its chance to pass at the end of the set is (under 0\.1%|\d\.\d%) \(the race drops under \d+(\.\d)?% at this look\)/);
    // The threshold at the look that dropped it: at most DROP_BELOW, less at an early look.
    assert.ok(doc.race!.drop_below! > 0 && doc.race!.drop_below! <= DROP_BELOW, String(doc.race!.drop_below));
    assert.ok(doc.race!.pass_chance! < doc.race!.drop_below!, `${doc.race!.pass_chance} vs ${doc.race!.drop_below}`);
    const shown = (await buildDashboard(ws)).data.verdicts.decisions.find((d) => d.candidate === 1)!;
    assert.equal(shown.outcome, 'rejected early');
    assert.deepEqual([shown.race?.passChance, shown.race?.dropBelow], [doc.race!.pass_chance, doc.race!.drop_below]);
    const champion = (await new EvalStore(ws).get(0))!;
    const championCost = champion.instances.reduce((t, r) => t + (r.cpu_s ?? r.time_s), 0);
    // A full evaluation of a 20x slower solver costs about 20x the champion's; the race spent under a quarter of that.
    assert.ok(doc.race!.spent_s < 0.25 * 20 * championCost, `race spent ${doc.race!.spent_s} s, champion's full perf ${championCost} s`);
    const results = fs.readFileSync(path.join(ws, 'SATLUTION_1', 'RESULTS.md'), 'utf8');
    assert.match(results, /## Rejected early by racing \(\d+ of 12 instances\)/);
    // The race is its one measurement beside the champion: a duel that stops where the race dropped it.
    const raced = (await readDuels(ws)).filter((d) => d.purpose === 'decision');
    assert.equal(raced.length, 1);
    assert.equal(raced[0]!.race?.outcome, 'rejected early');
    assert.equal(raced[0]!.pairs.length, doc.race!.ran);
    assert.equal((await readDuels(ws)).filter((d) => d.purpose === 'calibration').length, 0, 'no calibration: decisions need no noise band');
    // The champion's runs in the race and its stored evaluation are two separate measurements of one binary,
    // recorded as drift unless their runs got clearly different shares of the CPU (drift.ts).
    assert.equal(raced[0]!.a.hash, champion.solver_hash, 'the race ran the stored binary again');
    const again = duelSide(raced[0]!, 'a');
    // As the engine compares them (drift.ts driftOf): the whole stored measurement against the race's runs.
    const moved = differentLoad(champion.instances, again);
    const recorded = ((await readDrift(ws))?.observations ?? []).map((o) => [o.solver, o.from, o.on, o.n, o.diff_pct, o.drift_pct]);
    if (moved) assert.deepEqual(recorded, [], `other load (the champion's runs got ${moved.a.toFixed(2)} of a core, then ${moved.b.toFixed(2)}) is not drift`);
    else {
      const d = driftOf(champion.instances, again, raced[0]!.timeout_s, 'cpu');
      if (d) assert.deepEqual(recorded, [['SATLUTION_0', 'decision', 'cpu', again.length, d.diff_pct, d.drift_pct]]);
    }
  });

  it('`satlution calibrate` measures the band and `compare --measure` runs two solvers side by side', async () => {
    const ws = await optsat({ delay: 50_000_000, perf: 8 });
    const cal = spawnSync(process.execPath, [CLI, 'calibrate', '--dir', ws], { encoding: 'utf8' });
    assert.equal(cal.status, 0, cal.stderr);
    assert.match(cal.stdout, /SATLUTION_0 against itself on 8 instances, side by side/);
    assert.match(cal.stdout, /wall time: band \d+\.\d% of PAR-2/);
    assert.match(
      cal.stdout,
      /a challenger needs a PAR-2 gain of at least \d+(\.\d+)?% \(min_improvement_pct\) in its race with the champion, and the PAR-2 test against its session's run noise .* this band \(\d+\.\d%\) is for information/,
    );
    const doc = (await readCalibration(ws))!;
    assert.equal(doc.n, 8);
    // The champion was built for it (never evaluated before) and really ran: per-instance times differ.
    const duel = (await readDuels(ws)).find((d) => d.purpose === 'calibration')!;
    assert.ok(duel.pairs.every((p) => p.a.status === 'solved' && p.b.status === 'solved'));
    assert.ok(duel.pairs.some((p) => p.a.time_s !== p.b.time_s));
    // A solver that crashes cannot measure the machine's noise: calibrate refuses with the reason.
    write(path.join(ws, 'broken', 'starexec_build'), "#!/bin/bash\nmkdir -p bin\nprintf '#!/bin/sh\\nkill -SEGV $$\\n' > bin/starexec_run_default\n");
    write(path.join(ws, 'broken', 'bin', 'starexec_run_default'), '#!/bin/sh\nkill -SEGV $$\n');
    fs.chmodSync(path.join(ws, 'broken', 'bin', 'starexec_run_default'), 0o755);
    const bad = spawnSync(process.execPath, [CLI, 'calibrate', '--dir', ws, '--solver', 'broken'], { encoding: 'utf8' });
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /the calibration cannot use broken: it failed against itself \(p\d\.cnf: crash/);
    assert.equal((await readCalibration(ws))!.at, doc.at, 'the good calibration is kept');
    const st = spawnSync(process.execPath, [CLI, 'status', '--dir', ws], { encoding: 'utf8' });
    assert.match(st.stdout, /noise band \d+\.\d%/);
    const cmp = spawnSync(process.execPath, [CLI, 'compare', '--measure', '--dir', ws, 'SATLUTION_0', 'SATLUTION_0', '--json'], { encoding: 'utf8' });
    assert.equal(cmp.status, 0, cmp.stderr);
    const out = JSON.parse(cmp.stdout) as { how: string; verdict: string; common: number; band_pct: number };
    assert.match(out.how, /side by side in one session/);
    assert.equal(out.common, 8);
    assert.equal(out.verdict, 'no significant difference');
    assert.equal(out.band_pct, doc.cpu ? doc.cpu.band_pct : doc.wall.band_pct, 'the workspace band is in force');
  });
});
