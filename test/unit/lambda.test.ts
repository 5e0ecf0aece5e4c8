// champion-challenger with lambda > 1: a (1+lambda) evolution strategy. Every proposal of a cycle runs
// in one race with the champion (one session, the champion's runs shared by all). The tuner draws options least-tried first and never repeats a value it
// already tried from the same parent. `satlution cycle --minutes` runs cycles within a time budget.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tunerAgent } from '../../src/core/agents/tuner';
import { loadConfig } from '../../src/core/config/load';
import { runCycle } from '../../src/core/cycle/engine';
import { silentLogger } from '../../src/core/ports';
import { CandidateStore } from '../../src/core/store/candidates';
import { withValues } from '../../src/core/config/edit';
import { CLI } from './helpers';
import { optsatWorkspace, withStrategy } from './optsatWorkspace';

/** The option changes a candidate's HYPOTHESIS.md names, as "name=value". */
const changes = (ws: string, id: number) =>
  [...fs.readFileSync(path.join(ws, `SATLUTION_${id}`, 'HYPOTHESIS.md'), 'utf8').matchAll(/`(\w+)` from \S+ to (-?\d+)/g)].map((m) => `${m[1]}=${m[2]}`);

describe('(1+lambda): champion-challenger with lambda proposals per cycle', function () {
  this.timeout(600000);

  it('evaluates every proposal, duels only the fastest survivor, and tries the least-tried options first', async () => {
    const ws = await optsatWorkspace({
      perf: 6,
      perfSeed: 900,
      inert: ['alpha', 'beta'],
      edit: withStrategy('{ name: champion-challenger, lambda: 3, min_improvement_pct: 5, alpha: 0.05 }'),
    });
    const config = await loadConfig(ws);
    assert.equal(config.strategy.name === 'champion-challenger' && config.strategy.lambda, 3);
    const logs: string[] = [];
    const s = await runCycle({
      ws,
      config,
      agent: tunerAgent(),
      approver: { confirm: async () => true },
      log: silentLogger,
      jobs: 2,
      onEvent: (e) => e.type === 'log' && logs.push(e.message),
    });
    const { index } = await new CandidateStore(ws).load();
    const children = index.candidates.filter((c) => c.parent === 0).map((c) => c.id);
    assert.deepEqual(children, [1, 2, 3], 'three proposals from the champion in one cycle');
    assert.deepEqual(s.selected, [1, 2, 3], 'no screen: every coded proposal is evaluated');
    // Arms (an option and a direction) least tried first: no arm twice in the cycle while another is untried.
    const [c1, c2, c3] = children.map((id) => changes(ws, id));
    const current = (name: string) => (name === 'delay' ? 100000000 : 5);
    const arm = (c: string) => `${c.split('=')[0]}${Math.sign(Number(c.split('=')[1]) - current(c.split('=')[0]!)) > 0 ? '+' : '-'}`;
    const used = [c1, c2, c3].flat().map((c) => arm(c!));
    assert.equal(new Set(used).size, used.length, `an arm tried twice in one cycle of 6 arms: ${used.join(' ')}`);
    // One race: every proposal that passed its gates beside the same champion runs (one session, a duel each).
    const duels = fs.readdirSync(path.join(ws, '.satlution', 'duels')).map(
      (f) =>
        JSON.parse(fs.readFileSync(path.join(ws, '.satlution', 'duels', f), 'utf8')) as {
          session: string;
          purpose: string;
          cycle: number | null;
          b: { dir: string };
          race?: { outcome: string; entrants?: number };
        },
    );
    const decision = duels.filter((d) => d.purpose === 'decision' && d.cycle === 1);
    const passed = children.filter((id) =>
      (JSON.parse(fs.readFileSync(path.join(ws, '.satlution', 'evals', `SATLUTION_${id}.json`), 'utf8')) as { gates: { gate: string; ok: boolean }[] }).gates
        .filter((g) => g.gate !== 'perf')
        .every((g) => g.ok),
    );
    assert.equal(decision.length, passed.length, JSON.stringify(decision.map((d) => d.b.dir)));
    assert.equal(new Set(decision.map((d) => d.session.split('.')[0])).size, Math.min(1, decision.length), 'one session');
    for (const d of decision) assert.equal(d.race?.entrants, passed.length);
    assert.match(s.outcome ?? '', /stays champion|is the new champion/);
    // A challenger that ran the whole set says why it was or was not promoted, in a sentence.
    for (const d of decision.filter((x) => x.race?.outcome === 'survived'))
      assert.match(
        fs.readFileSync(path.join(path.resolve(ws, d.b.dir), 'RESULTS.md'), 'utf8'),
        /\n\*\*Why:\*\* .+ \(PAR-2 [\d.]+ -> [\d.]+ s, 95% CI of the difference .+, p [=<] .+, n = \d+\)/,
      );

    // The next cycle from the same parent proposes no value again, and starts with an untried arm if any is left.
    if (index.champion === 0) {
      await runCycle({ ws, config, agent: tunerAgent(), approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });
      const tried = new Set([c1, c2, c3].flat());
      for (const id of [4, 5, 6]) for (const c of changes(ws, id)) assert.ok(!tried.has(c!), `SATLUTION_${id} proposes ${c} again`);
      if (new Set(used).size < 6) assert.ok(!used.includes(arm(changes(ws, 4)[0]!)), `SATLUTION_4 starts with ${changes(ws, 4)[0]} after ${used.join(' ')}`);
    }
  });

  it('satlution cycle --minutes starts no cycle the time left cannot hold, and reports the champion and the time left', async () => {
    const ws = await optsatWorkspace({ perf: 4, perfSeed: 950 });
    const r = spawnSync(process.execPath, [CLI, 'cycle', '--dir', ws, '--agent', 'tuner', '--minutes', '0.02', '--yes'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^cycle 1: .+\nchampion SATLUTION_\d+, PAR-2 [\d.]+ s on the perf set( \(SATLUTION_0: [\d.]+ s\))?; 0:00 left\ntime budget: 0:00 left of 0.02 min, less than half of what a cycle takes on average so far \(\d+:\d\d\): no new cycle\n$/,
    );
    const bad = spawnSync(process.execPath, [CLI, 'cycle', '--dir', ws, '--minutes', 'soon'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--minutes must be a positive number, got "soon"/);
  });

  it('config edits keep the file as it was apart from the values set', async () => {
    const ws = await optsatWorkspace({ perf: 1, perfSeed: 1 });
    const text = fs.readFileSync(path.join(ws, 'satlution.yaml'), 'utf8');
    const perfLine = /^ {2}perf: +\{ set: perf, +timeout_s: \d+, .*\}.*$/m.exec(text)![0];
    const out = withValues(text, [
      { path: ['benchmarks', 'heldout'], value: 'benchmarks/heldout' },
      { path: ['stages', 'perf', 'holdout'], value: 'heldout' },
      { path: ['stages', 'perf', 'timeout_s'], value: 20 },
    ]);
    const expected = text
      .replace(/^( {2}perf: benchmarks\/perf.*)$/m, '$1\n  heldout: benchmarks/heldout')
      .replace(perfLine, perfLine.replace(/timeout_s: \d+/, 'timeout_s: 20').replace(/ \}/, ', holdout: heldout }'));
    assert.notEqual(expected, text);
    assert.equal(out, expected);
    assert.throws(() => withValues(text, [{ path: ['stages', 'perf', 'holdout'], value: 'perf' }]), /the held-out set must not be the perf set itself/);
  });
});
