// The measured run is the checked run. A solver could tell a measured run from a checked one by its
// CPU mask, its limits or its environment, and lie only where it is not checked; so every perf run is
// the same kind of run (a probe solver reports what it sees in a perf evaluation, a race, a held-out
// duel and a calibration: the same), and the audits check the proofs the measured runs wrote, never a
// re-run. Attacked for real: scripted coders write liars keyed on one CPU in the mask (the race's
// pinned lanes) and on a visible memory limit, each gets one real cycle with the race on (jobs 2) on
// the local runner, on an SSH host (a real sshd) and on a real Slurm; none is promoted, each is named
// in RESULTS.md, and the proof that caught it is the one its race run wrote.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../../src/core/config/load';
import { runCycle, type EvolutionAgent } from '../../src/core/cycle/engine';
import type { CycleState } from '../../src/core/store/cycleState';
import { measureTogether } from '../../src/core/decide/measureTogether';
import { readDuels } from '../../src/core/decide/duels';
import type { EvalDoc } from '../../src/core/eval/evalDoc';
import { EvalStore } from '../../src/core/eval/evalStore';
import { solverIdentity } from '../../src/core/eval/resultsStore';
import { evaluateSolver } from '../../src/core/eval/service';
import { pigeonhole, planted3Sat } from '../../src/core/instances/generators';
import { silentLogger } from '../../src/core/ports';
import type { RunnerEnv } from '../../src/core/runners/select';
import { localRunner } from '../../src/core/runners/local';
import { PROOFS_DIR, proofRoot } from '../../src/core/run/keptProof';
import { CandidateStore } from '../../src/core/store/candidates';
import { seededWorkspace } from '../fixtures/seededWorkspace';
import { type Slurm, type Sshd, slurmUp, sshdUp } from './clusters';
import { tempDir, WORKER, write } from './helpers';
import { EASY_UNSAT, HARD, keyedLiar, LIAR_MARGIN_PCT, noDrops, spinCadicalWorkspace } from './spinCadical';

const DRAT_TRIM = process.env.SATLUTION_DRAT_TRIM;

function needTools(ctx: Mocha.Context): void {
  if (!DRAT_TRIM || spawnSync('cadical', ['--version']).status !== 0) {
    if (process.env.CI) throw new Error('cadical and drat-trim are required (scripts/setup-sat-tools.sh)');
    ctx.skip();
  }
}

/** What a solver can see of its run, printed as `c view` lines before it runs cadical: its CPUs, limits, environment, arguments, scratch and cgroups. */
const PROBE = [
  '#!/usr/bin/env bash',
  'echo "c view nproc=$(nproc)"',
  'echo "c view ulimits=$(ulimit -a | tr -s " " | tr "\\n" ";")"',
  'echo "c view env=$(env | cut -d= -f1 | grep -v "^_$" | sort | tr "\\n" ",") PATH=$PATH LANG=$LANG"',
  'echo "c view argv=$# $(basename "$1") $(basename "${2:-none}") $([ "$(dirname "$1")" = "$(dirname "${2:-/}")" ] && echo together)"',
  'echo "c view tmp=$(df -k --output=size /tmp 2>&1 | tail -1) cwd=$([ "$PWD" = "$HOME" ] && echo home || echo elsewhere)"',
  'echo "c view cgroup=$(tr "\\n" ";" < /proc/self/cgroup)"',
  'exec cadical -q "$1" "$2/proof.out"',
  '',
].join('\n');

/** A solver directory holding the probe (built: nothing to build), told apart from another by its name. */
function probe(name: string): string {
  const dir = path.join(tempDir(), name);
  write(path.join(dir, 'bin', 'starexec_run_default'), `${PROBE}# ${name}\n`);
  fs.chmodSync(path.join(dir, 'bin', 'starexec_run_default'), 0o755);
  write(path.join(dir, 'starexec_build'), '#!/bin/sh\nexit 0\n');
  return dir;
}

/** The `c view` lines of every run log of this solver in the workspace, by instance (the logs of its latest runs). */
async function views(ws: string, solverDir: string): Promise<Map<string, string>> {
  const dir = path.join(ws, '.satlution', 'logs', await solverIdentity(solverDir));
  const out = new Map<string, string>();
  for (const f of fs.readdirSync(dir))
    out.set(
      f,
      fs
        .readFileSync(path.join(dir, f), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('c view '))
        .join('\n'),
    );
  return out;
}

describe('the measured run is the checked run: every perf run is the same kind of run', function () {
  this.timeout(600000);
  before(function () {
    needTools(this);
  });

  it('a solver sees the same CPU mask, limits, environment and arguments in a perf evaluation, a race, a held-out duel and a calibration', async () => {
    const b = probe('SATLUTION_1');
    const ws = await seededWorkspace({
      dir: tempDir(),
      seedName: 'probe',
      seed: probe('seed'),
      perf: (dir) => {
        for (const [p, h] of EASY_UNSAT) write(path.join(dir, `php-${p}-${h}.cnf`), pigeonhole(p, h));
        for (let s = 1; s <= 4; s++) write(path.join(dir, `planted-${s}.cnf`), planted3Sat(60, 4.0, 800 + s));
      },
    });
    const config = await loadConfig(ws);
    const a = path.join(ws, 'SATLUTION_0');
    const env: RunnerEnv = { workerFile: WORKER };
    const seen: { where: string; view: string }[] = [];
    const collect = async (where: string, dir: string) => {
      for (const [instance, view] of await views(ws, dir)) seen.push({ where: `${where}: ${instance}`, view });
    };
    // A perf evaluation (two slots), its own logs.
    const e = await evaluateSolver({ ws, config, solverDir: b, overrides: { stage: 'perf', jobs: 2 }, rules: false, record: false, runnerEnv: env });
    assert.equal(e.verdict, 'pass', e.doc.gates.map((g) => g.detail).join('\n'));
    await collect('perf evaluation', b);
    // A race (two pinned lanes; no futility, so it runs every instance), a held-out duel (on the same formulas here), a calibration (A/A).
    const race = { racing: { ...config.evaluation.racing, enabled: false }, on: 'cpu' as const, reference: new Map<string, number>() };
    const hold = `race-probe-${process.pid}`;
    const kept = path.join(proofRoot(), hold);
    try {
      const raced = await measureTogether({
        ws,
        config,
        a,
        challengers: [b],
        purpose: 'decision',
        race,
        hold,
        on: 'cpu',
        bandPct: 0,
        alpha: 0.01,
        runnerEnv: env,
        overrides: { jobs: 2 },
      });
      await collect('race', b);
      // The challenger's UNSAT answers kept their proofs in the hold, each named by its run, further runs of a
      // survivor included (their answers are checked before a promotion too); the champion's side kept none.
      const unsat = raced.duels[0]!.b.filter((r) => r.answer === 'UNSAT');
      const further = raced.duels[0]!.doc.pairs.flatMap((p) => (p.again ?? []).map((x) => x.b)).filter((r) => r.answer === 'UNSAT');
      assert.deepEqual(
        fs.readdirSync(kept).sort(),
        [...unsat.map((r) => r.proof!.kept!.run), ...further.map((r) => r.run)].map((run) => `${run}.proof`).sort(),
      );
      assert.deepEqual(
        raced.duels[0]!.doc.pairs.filter((p) => p.b.answer === 'UNSAT')
          .map((p) => p.b.run)
          .sort(),
        unsat.map((r) => r.proof!.kept!.run).sort(),
        'each pair names its run',
      );
      const heldOut = { ws, config, a, challengers: [b], purpose: 'held-out' as const, hold, on: 'cpu' as const, bandPct: 0, alpha: 0.01, runnerEnv: env };
      await measureTogether({ ...heldOut, stopWhen: () => undefined, overrides: { bench: 'perf', jobs: 2 } });
      await collect('held-out duel', b);
      // A held-out duel that stops early keeps its challenger's proofs: the audit of its answers comes next (the hold goes with the cycle).
      const early = await measureTogether({
        ...heldOut,
        stopWhen: (pairs) => (pairs.length >= 5 ? 'it could tell' : undefined),
        overrides: { bench: 'perf', jobs: 2 },
      });
      const stopped = early.duels[0]!.doc;
      assert.ok(stopped.stopped && stopped.pairs.length < 8, JSON.stringify(stopped.stopped));
      const heldRuns = stopped.pairs.filter((p) => p.b.answer === 'UNSAT').map((p) => p.b.run!);
      assert.ok(heldRuns.length > 0, 'five of eight pairs hold an UNSAT answer');
      for (const run of heldRuns) assert.ok(fs.existsSync(path.join(kept, `${run}.proof`)), `the proof of run ${run} is still kept`);
    } finally {
      await localRunner().release(hold);
    }
    assert.equal(fs.existsSync(kept), false);
    await measureTogether({
      ws,
      config,
      a: b,
      challengers: [b],
      purpose: 'calibration',
      on: 'cpu',
      bandPct: 0,
      alpha: 0.01,
      runnerEnv: env,
      overrides: { jobs: 2 },
    });
    await collect('calibration', b);
    assert.equal(seen.length, 4 * 8, 'every run of every kind left its log');
    const distinct = new Map<string, string[]>();
    for (const s of seen) distinct.set(s.view, [...(distinct.get(s.view) ?? []), s.where]);
    assert.equal(distinct.size, 1, [...distinct].map(([v, w]) => `${w.join(', ')}:\n${v}`).join('\n\n'));
    const [view] = [...distinct.keys()];
    assert.match(view!, /c view nproc=1\n/, 'one core of its own in every kind of run');
    assert.match(view!, /argv=2 instance\.cnf proof together/, 'the instance and a proof directory, always');
  });
});

/** A cycle's verdict on a liar: never promoted, failed with the lie named in RESULTS.md, and caught from the proof its race run wrote; nothing kept afterwards in `holds` (where its runner keeps them). */
async function assertCaught(ws: string, s: CycleState, holds: string): Promise<void> {
  const shown = `${s.outcome}`;
  assert.equal(s.step, 'done');
  assert.equal(s.champion_changed, false, shown);
  const { index } = await new CandidateStore(ws).load();
  assert.equal(index.champion, 0);
  assert.equal(index.candidates.find((c) => c.id === 1)!.status, 'failed', shown);
  assert.match(shown, /caught|failed the perf gate/, shown);
  // It did lie in the race: its answer on the hard formula came at once, and UNSAT.
  const decision = (await readDuels(ws)).filter((d) => d.purpose === 'decision').pop()!;
  const hard = decision.pairs.find((p) => p.instance === HARD.name)!;
  assert.equal(hard.b.answer, 'UNSAT');
  assert.ok(hard.b.time_s < hard.a.time_s / 5, JSON.stringify(hard));
  const results = fs.readFileSync(path.join(ws, 'SATLUTION_1', 'RESULTS.md'), 'utf8');
  assert.match(results, /Verdict: \*\*fail\*\*/);
  assert.match(results, /UNSAT claimed on u-hard\.cnf, proof rejected by drat-trim/);
  // The proof checked was the one that very run wrote (the random audit of the race, or the promotion audit).
  const doc: EvalDoc = (await new EvalStore(ws).get(1))!;
  const checked = doc.gates
    .flatMap((g) => [...(g.audit?.instances ?? []), ...(g.promotion_audit?.instances ?? [])])
    .find((i) => i.instance === HARD.name && i.verdict === 'caught');
  assert.ok(checked, JSON.stringify(doc.gates.map((g) => g.detail)));
  assert.equal(checked.run, hard.b.run, "the checked proof is the race run's");
  const left = path.join(holds, decision.session);
  assert.equal(
    fs.existsSync(left),
    false,
    `the cycle's kept proofs are gone once it decided: ${
      fs.existsSync(left)
        ? fs
            .readdirSync(left)
            .map((f) => `${f} ${fs.statSync(path.join(left, f)).mtime.toISOString()}`)
            .join(', ')
        : ''
    } (now ${new Date().toISOString()})`,
  );
}

/** One cycle of a liar's with the race on (jobs 2); it warns of nothing (a hold it could not release, say). */
async function cycleOf(ws: string, agent: EvolutionAgent, runnerEnv: RunnerEnv = { workerFile: WORKER }): Promise<CycleState> {
  const warned: string[] = [];
  const s = await runCycle({
    ws,
    config: await loadConfig(ws),
    agent,
    approver: { confirm: async () => true },
    log: { ...silentLogger, warn: (m) => warned.push(m) },
    jobs: 2,
    runnerEnv,
  });
  assert.deepEqual(warned, []);
  return s;
}

/**
 * The liar's perf set: the easy formulas, ten SAT ones and the hard one; the margin only the lie reaches.
 * Racing's drops are off (the race still runs side by side on pinned lanes): the hard formula comes last,
 * and a futility look may drop the liar before it lies, which would leave nothing to catch.
 */
const liarWorkspace = (edit?: (y: string) => string) =>
  spinCadicalWorkspace({ hard: true, unsat: EASY_UNSAT, sat: 10, marginPct: LIAR_MARGIN_PCT, edit: (y) => (edit ?? ((x) => x))(noDrops(y)) });

/** Lies when it sees one CPU: in the race's pinned lanes (the old audits re-ran unpinned). */
const ONE_CPU = '[ "$(nproc)" = 1 ]';

/** Lies when it sees a memory limit: RLIMIT_AS (where no cgroup can be made), or its cgroup's (v2 memory.max, v1 memory.limit_in_bytes). */
const MEMORY_LIMIT = `{ [ "$(ulimit -v)" != unlimited ] || { c=$(sed -n 's/^0:://p' /proc/self/cgroup); m=$(cat "/sys/fs/cgroup$c/memory.max" 2>/dev/null); [ -n "$m" ] && [ "$m" != max ]; } || { c=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup); l=$(cat "/sys/fs/cgroup/memory$c/memory.limit_in_bytes" 2>/dev/null); [ -n "$l" ] && [ "$l" -lt 4611686018427387904 ]; }; }`;

describe('the measured run is the checked run: liars keyed on what tells a measured run, in real cycles', function () {
  this.timeout(900000);
  before(function () {
    needTools(this);
  });

  it("local: a liar that lies only with one CPU in its mask is caught from its race run's proof, not promoted (and is, with proofs off)", async () => {
    const liar = () => keyedLiar('answer the hardest formula from memory when pinned', ONE_CPU);
    const ws = await liarWorkspace();
    await assertCaught(ws, await cycleOf(ws, liar()), proofRoot());
    // The attack is real: where UNSAT answers are taken on trust (the audit off), the same liar wins.
    const trusting = await liarWorkspace((y) => y.replace(/^(\s*perf:\s*\{[^}]*?)\}/m, '$1, audit: { min: 0, share: 0 } }'));
    const s = await cycleOf(trusting, liar());
    assert.equal(s.champion_changed, true, s.outcome ?? '');
  });

  it("local: a liar that lies only where it sees a memory limit is caught from its race run's proof, not promoted", async () => {
    // In the sandbox this machine shows a solver no memory limit (a cgroup namespace, no /sys, no
    // RLIMIT_AS); without it, its run's cgroup does: the liar then lies in every measured run.
    const ws = await liarWorkspace((y) => y.replace(/^sandbox: on$/m, 'sandbox: off'));
    await assertCaught(ws, await cycleOf(ws, keyedLiar('answer the hardest formula from memory under a memory limit', MEMORY_LIMIT)), proofRoot());
  });
});

describe('the measured run is the checked run: on an SSH host and on Slurm', function () {
  this.timeout(1200000);
  let sshd: Sshd | undefined;
  let slurm: Slurm | undefined;
  before(function () {
    needTools(this);
    assert.ok(fs.existsSync(WORKER), `${WORKER} is missing: run node esbuild.mjs first`);
  });
  after(() => {
    sshd?.down();
    slurm?.down();
  });

  it('SSH: the liar pinned to one CPU on the host is caught from the proof its race run kept there, not promoted', async function () {
    sshd = sshdUp(this);
    const workdir = tempDir('satlution-remote-');
    const ws = await liarWorkspace((y) =>
      y
        .replace(/^(\s*perf:\s*\{[^}]*?)runner: local/m, '$1runner: box')
        .replace(
          /^runners:\n/m,
          `runners:\n  - { name: box, kind: ssh, host: ${sshd!.host}, workdir: ${JSON.stringify(workdir)}, jobs: 2, node: ${JSON.stringify(process.execPath)} }\n`,
        ),
    );
    assert.equal((await loadConfig(ws)).stages.perf.runner, 'box');
    const s = await cycleOf(ws, keyedLiar('answer the hardest formula from memory when pinned', ONE_CPU), {
      workerFile: WORKER,
      sshArgs: ['-F', sshd!.config],
    });
    await assertCaught(ws, s, path.join(workdir, PROOFS_DIR));
    // The proofs were kept on the host, beside its runs, and checked there: its workdir holds the hold no more.
    assert.ok(fs.existsSync(path.join(workdir, PROOFS_DIR)), "proofs were kept in the host's workdir");
  });

  it('Slurm: the liar is caught from the proof its race run kept in the shared workdir (checked by a Slurm job), not promoted', async function () {
    slurm = slurmUp(this);
    const workdir = path.join(tempDir('satlution-shared-'), 'work');
    const ws = await liarWorkspace((y) =>
      y
        .replace(/^(\s*perf:\s*\{[^}]*?)runner: local/m, '$1runner: cluster')
        .replace(
          /^runners:\n/m,
          `runners:\n  - { name: cluster, kind: slurm, workdir: ${JSON.stringify(workdir)}, node: ${JSON.stringify(process.execPath)}, mem_mb: 1024 }\n`,
        ),
    );
    const saved = process.env.SLURM_CONF;
    process.env.SLURM_CONF = slurm!.conf;
    try {
      // On this Slurm (no CPU binding) a run sees the node's CPUs: the liar here lies wherever it runs.
      const s = await cycleOf(ws, keyedLiar('answer the hardest formula from memory'));
      await assertCaught(ws, s, path.join(workdir, PROOFS_DIR));
    } finally {
      if (saved === undefined) delete process.env.SLURM_CONF;
      else process.env.SLURM_CONF = saved;
    }
  });
});
