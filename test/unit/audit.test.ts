// The perf audit (eval/audit.ts): perf checks no proofs, so a random sample of its UNSAT answers is run
// again with proofs. A solver that guesses UNSAT passes perf without it and fails with it; an honest one
// passes with every audited proof checked; the sample is drawn at random; min 0, share 0 turns it off.
// Real cadical, real drat-trim, through the evaluation service.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseConfig } from '../../src/core/config/load';
import type { Config } from '../../src/core/config/schema';
import { auditSize, auditStream, admitRate, chooseAudited, drawFrom, judgeAudit, type AuditRandom } from '../../src/core/eval/audit';
import { type Evaluation, type EvaluationRequest, evaluateSolver, EvaluationSetupError, plannedStages } from '../../src/core/eval/service';
import { pigeonhole, planted3Sat } from '../../src/core/instances/generators';
import type { InstanceSpec } from '../../src/core/instances/instances';
import { prng } from '../../src/core/stats/prng';
import { signaturesOf } from '../../src/core/rules/postmortem';
import { StoredRun, type InstanceResult } from '../../src/core/run/result';
import { solvedRun, tempDir, WORKER, write } from './helpers';
import { proofRoot } from '../../src/core/run/keptProof';

const DRAT_TRIM = process.env.SATLUTION_DRAT_TRIM;
const UNSAT = ['php-5-4.cnf', 'php-6-5.cnf', 'php-7-6.cnf', 'php-7-5.cnf', 'php-8-7.cnf'];

/** A perf set: two SAT formulas, three UNSAT ones known from meta.csv and two whose answer nobody knows. */
function perfSet(dir: string): string {
  let meta = 'instance,family,expected\n';
  for (const [p, h] of [
    [5, 4],
    [6, 5],
    [7, 6],
    [7, 5],
    [8, 7],
  ] as const) {
    write(path.join(dir, `php-${p}-${h}.cnf`), pigeonhole(p, h));
    meta += `php-${p}-${h}.cnf,pigeonhole,${p - h === 1 && p < 8 ? 'UNSAT' : ''}\n`;
  }
  for (const s of [1, 2]) {
    write(path.join(dir, `planted-${s}.cnf`), planted3Sat(60, 4.0, 500 + s));
    meta += `planted-${s}.cnf,planted,SAT\n`;
  }
  write(path.join(dir, 'meta.csv'), meta);
  return dir;
}

/** A solver directory with this run script. */
function solver(name: string, script: string): string {
  const dir = path.join(tempDir(), name);
  write(path.join(dir, 'bin', 'starexec_run_default'), `#!/usr/bin/env bash\n${script}`);
  fs.chmodSync(path.join(dir, 'bin', 'starexec_run_default'), 0o755);
  return dir;
}

/** Guesses: a quick look for a model (100 conflicts), else "UNSAT" at once with an empty proof. */
const liar = () =>
  solver(
    'guesses-unsat',
    'out=$(cadical -q -c 100 "$1"); code=$?\nif [ $code -eq 10 ]; then printf "%s\\n" "$out"; exit 10; fi\necho "s UNSATISFIABLE"\n[ -n "${2:-}" ] && : > "$2/proof.out"\nexit 20\n',
  );
/** Solves with cadical, but writes a proof of nothing (one empty-looking clause) for every UNSAT answer. */
const bogus = () =>
  solver(
    'bogus-proofs',
    'out=$(cadical -q "$1"); code=$?\nif [ $code -eq 20 ]; then echo "s UNSATISFIABLE"; printf "1 0\\n" > "$2/proof.out"; exit 20; fi\nprintf "%s\\n" "$out"; exit $code\n',
  );
/** cadical with a DRAT proof when given a proof directory. */
const honest = () => solver('cadical', 'exec cadical -q "$1" ${2:+"$2/proof.out"}\n');

/** A workspace's config: the perf set, a 20 s perf timeout, the audit as given. */
function config(audit: string, extra = ''): Config {
  const r = parseConfig(
    `seeds: [{ name: s, source: . }]\nbenchmarks: { smoke: benchmarks/perf, verify: benchmarks/perf, perf: benchmarks/perf }\nstages:\n  perf: { timeout_s: 20${audit ? `, audit: ${audit}` : ''} }\n${extra}`,
  );
  if (!r.ok) throw new Error(r.issues.map((i) => `${i.key}: ${i.message}`).join('\n'));
  return r.config;
}

/** A fresh workspace directory holding the perf set. */
function workspace(): string {
  const ws = tempDir();
  perfSet(path.join(ws, 'benchmarks', 'perf'));
  return ws;
}

/** A seedable draw for the audit (generators.ts's PRNG). */
const seeded = (seed: number): AuditRandom => drawFrom(prng(seed));

/** A seeded top-up alone: no answer drawn as its run ends (whose order is the machine's), so the sample depends on the seed only. */
const seededTopUp = (seed: number): AuditRandom => ({ admit: () => false, index: seeded(seed).index });

function evaluate(
  ws: string,
  solverDir: string,
  cfg: Config,
  random?: AuditRandom,
  watch: Pick<EvaluationRequest, 'onStatus' | 'onResult'> = {},
): Promise<Evaluation> {
  return evaluateSolver({
    ...watch,
    ws,
    config: cfg,
    solverDir,
    overrides: { stage: 'perf', jobs: 2 },
    build: false,
    rules: false,
    record: false,
    dratTrim: DRAT_TRIM!,
    runnerEnv: { workerFile: WORKER },
    ...(random ? { auditRandom: random } : {}),
  });
}

const perfGate = (e: Evaluation) => e.doc.gates.find((g) => g.gate === 'perf')!;

/** The runs stored in a workspace's results store. */
function storedRuns(ws: string): StoredRun[] {
  return fs
    .readFileSync(path.join(ws, '.satlution', 'results', 'runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => StoredRun.parse(JSON.parse(l)));
}

describe('perf audit: the sample', () => {
  it('takes the larger of min and the share, capped at what there is', () => {
    assert.equal(auditSize({ min: 3, share: 0.1 }, 100), 10);
    assert.equal(auditSize({ min: 3, share: 0.1 }, 20), 3);
    assert.equal(auditSize({ min: 3, share: 0.1 }, 2), 2);
    assert.equal(auditSize({ min: 0, share: 0.25 }, 9), 3, 'the share rounds up');
    assert.equal(auditSize({ min: 0, share: 0 }, 50), 0);
  });

  it('is drawn by the random source alone: a seed repeats its draw, other seeds draw other instances, all reachable', () => {
    const names = Array.from({ length: 12 }, (_, i) => `u${i}.cnf`);
    assert.deepEqual(chooseAudited(names, 3, seeded(7)), chooseAudited([...names].reverse(), 3, seeded(7)), 'the order of the results does not matter');
    const draws = new Set<string>();
    const seen = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const d = chooseAudited(names, 3, seeded(seed));
      assert.equal(new Set(d).size, 3);
      assert.ok(d.every((n) => names.includes(n)));
      draws.add(d.join(','));
      d.forEach((n) => seen.add(n));
    }
    assert.ok(draws.size > 20, `40 seeds gave only ${draws.size} different samples`);
    assert.equal(seen.size, names.length, 'every instance can be drawn');
    assert.deepEqual(chooseAudited(names, 99, seeded(1)), [...names].sort(), 'capped at the candidates');
  });

  it('judges an answer by the check of the proof its run kept: verified is ok, a rejected proof is caught, an unverified one is unsolved', () => {
    const base: InstanceResult = {
      instance: 'x.cnf',
      family: null,
      expected: null,
      expected_from: 'none',
      answer: 'UNSAT',
      status: 'solved',
      time_s: 1,
      cpu_s: null,
      mem_mb: null,
      exit_code: 20,
      signal: null,
      check: { kind: 'drat', ok: true, time_s: 0.1, detail: 's VERIFIED' },
      detail: '',
      proof: { bytes: 120, kept: { run: 'ab'.repeat(16), runner: 'local', hold: 'h' } },
    };
    const ok = judgeAudit(base);
    assert.deepEqual([ok.verdict, ok.run, ok.proof_bytes], ['ok', 'ab'.repeat(16), 120], 'the record names the run whose proof was checked');
    assert.equal(
      judgeAudit({
        ...base,
        status: 'invalid_proof',
        check: { ...base.check, ok: false },
        detail: 'UNSAT claimed on x.cnf, proof rejected by drat-trim (the proof its own run wrote)',
      }).failure,
      'invalid_proof: UNSAT claimed on x.cnf, proof rejected by drat-trim (the proof its own run wrote) (perf audit)',
    );
    const late = judgeAudit({
      ...base,
      status: 'unknown',
      check: { ...base.check, ok: null, detail: 'its proof was not verified: drat-trim did not finish within its 10 s of CPU time' },
    });
    assert.deepEqual(
      [late.verdict, late.failure, late.detail],
      ['unsolved', undefined, 'counted as unsolved: its proof was not verified: drat-trim did not finish within its 10 s of CPU time'],
    );
  });

  it('draws each answer as its run ends and queues its check for a free slot; tops up to the policy once all are in; a failed check is reported at the end', async () => {
    assert.equal(admitRate({ min: 3, share: 0.1 }, 24), 0.125, 'the minimum, had every instance answered UNSAT');
    assert.equal(admitRate({ min: 3, share: 0.1 }, 100), 0.1);
    assert.equal(admitRate({ min: 5, share: 0 }, 2), 1);
    const spec = (name: string): InstanceSpec => ({ name, file: `/sets/${name}`, family: null, expected: null });
    const names = Array.from({ length: 10 }, (_, i) => `u${i}.cnf`);
    const answer = (instance: string, answer: 'SAT' | 'UNSAT' = 'UNSAT'): InstanceResult => solvedRun(instance, 1, { answer });
    const verified = (r: InstanceResult): InstanceResult => ({ ...r, check: { kind: 'drat', ok: true, time_s: 0.1, detail: 's VERIFIED' } });
    const batches: string[][] = [];
    // Draws that admit every other answer offered, and top up with the first names left.
    let n = 0;
    const stream = auditStream({
      policy: { min: 4, share: 0 },
      instances: names.map(spec),
      random: { admit: () => n++ % 2 === 0, index: () => 0 },
      check: async (rs) => {
        batches.push(rs.map((r) => r.instance));
        return new Map(rs.map((r) => [r.instance, verified(r)]));
      },
    });
    assert.equal(stream.next(), undefined, 'nothing to check before an answer is in');
    stream.offer(answer('u5.cnf', 'SAT'));
    assert.equal(stream.next(), undefined, 'a SAT answer is not audited');
    stream.offer(answer('u7.cnf'));
    stream.offer(answer('u3.cnf'));
    stream.offer(answer('u9.cnf'));
    const work = stream.next();
    assert.ok(work, 'the first drawn answer waits for a slot');
    await work();
    assert.deepEqual(batches, [['u7.cnf']]);
    const results = [answer('u5.cnf', 'SAT'), ...['u0', 'u1', 'u2', 'u3', 'u4', 'u6', 'u7', 'u8', 'u9'].map((x) => answer(`${x}.cnf`))];
    const out = await stream.finish(results);
    // u9 was drawn but no slot took it: checked at the end with the top-up (the first two names not drawn).
    assert.deepEqual(batches[1], ['u0.cnf', 'u1.cnf', 'u9.cnf']);
    assert.deepEqual(
      out.doc.instances.map((i) => [i.instance, i.verdict]),
      ['u0', 'u1', 'u7', 'u9'].map((x) => [`${x}.cnf`, 'ok']),
    );
    assert.deepEqual([out.doc.candidates, out.doc.checked, out.doc.caught], [9, 4, 0]);

    const failing = auditStream({
      policy: { min: 1, share: 0 },
      instances: names.map(spec),
      random: { admit: () => true, index: () => 0 },
      check: () => Promise.reject(new Error('the host went away')),
    });
    failing.offer(answer('u1.cnf'));
    await failing.next()!();
    await assert.rejects(failing.finish([answer('u1.cnf')]), /the host went away/);
  });
});

describe('perf audit: real solvers', function () {
  this.timeout(120000);
  before(function () {
    if (!DRAT_TRIM || spawnSync('cadical', ['--version']).status !== 0) {
      if (process.env.CI) throw new Error('cadical and drat-trim are required (scripts/setup-sat-tools.sh)');
      this.skip();
    }
  });

  it('proofs off, a solver that guesses UNSAT passes perf; on, every UNSAT answer needs the proof its own run wrote', async () => {
    const ws = workspace();
    const cheat = liar();
    const off = await evaluate(ws, cheat, config('{ min: 0, share: 0 }'));
    assert.equal(off.verdict, 'pass', perfGate(off).detail);
    assert.equal(off.doc.metrics!.solved_unsat, UNSAT.length, 'every UNSAT answer taken on trust');
    assert.equal(perfGate(off).audit, undefined);
    assert.doesNotMatch(perfGate(off).detail, /audit/);

    const on = await evaluate(ws, cheat, config('{ min: 2, share: 0 }'));
    assert.equal(on.verdict, 'fail');
    const g = perfGate(on);
    assert.equal(g.ok, false);
    assert.equal(g.failures.length, UNSAT.length, 'each UNSAT answer, not a sample: none brought a proof');
    for (const f of g.failures) assert.match(f, /^missing_proof: UNSAT claimed on php-\d-\d\.cnf without a proof \(proof\.out is empty\)/);
    assert.equal(g.audit, undefined, 'a failed stage is not audited');
    // The post-mortem records it as it would a missing proof in verify.
    assert.deepEqual(
      signaturesOf('SATLUTION_1', on.doc, []).map((s) => s.kind),
      ['missing_proof'],
    );
  });

  it('a solver that writes bogus proofs is caught from the proofs its measured runs kept; nothing runs again', async () => {
    const ws = workspace();
    const scratch = tempDir();
    const e = await evaluate(ws, bogus(), config('{ min: 2, share: 0 }', `evaluation: { scratch_dir: ${scratch} }\n`));
    assert.equal(e.verdict, 'fail');
    const g = perfGate(e);
    // At least the minimum of 2: each answer also joins by its own crypto draw as its run ends (3 or more in about 15%).
    const n = g.audit!.instances.length;
    assert.ok(n >= 2 && n <= 5, `${n} audited`);
    assert.match(
      g.detail,
      new RegExp(
        `audit: the proofs of ${n} of 5 UNSAT answers checked, as their runs wrote them; ${n} caught: UNSAT claimed on php-\\d-\\d\\.cnf, proof rejected by drat-trim`,
      ),
    );
    assert.deepEqual([g.audit!.from, g.audit!.candidates, g.audit!.checked, g.audit!.caught], ['kept', 5, n, n]);
    for (const f of g.failures)
      assert.match(f, /^invalid_proof: UNSAT claimed on php-\d-\d\.cnf, proof rejected by drat-trim .*\(the proof its own run wrote\) \(perf audit\)$/);
    // The very runs that were measured: the audit names their keys, and no other run was made.
    const runs = storedRuns(ws);
    const perfKeys = new Set(runs.map((r) => r.key));
    assert.equal(perfKeys.size, 7, 'seven perf runs, no re-run');
    for (const i of g.audit!.instances) assert.ok(i.run && perfKeys.has(i.run) && i.proof_bytes! > 0, JSON.stringify(i));
    // The check is recorded on those runs; the hold is released when the evaluation ends.
    const latest = new Map(runs.map((r) => [r.key, r.result]));
    for (const i of g.audit!.instances) assert.equal(latest.get(i.run!)!.status, 'invalid_proof');
    assert.deepEqual(fs.readdirSync(proofRoot(scratch)), [], 'no proof kept after the evaluation');
  });

  it('an honest solver passes; the audit checked the proofs its perf runs wrote, and those runs carry the verdict', async () => {
    const ws = workspace();
    const scratch = tempDir();
    const e = await evaluate(ws, honest(), config('', `evaluation: { scratch_dir: ${scratch} }\n`));
    assert.equal(e.verdict, 'pass', perfGate(e).detail + perfGate(e).failures.join('\n'));
    const g = perfGate(e);
    // Defaults: min 3, share 0.1 of 5 UNSAT answers. Each answer joins by its own crypto draw as its run
    // ends and the top-up brings the sample to 3, so it holds 3 answers or more (4 or 5 in about 11%).
    const n = g.audit!.instances.length;
    assert.ok(n >= 3 && n <= 5, `${n} audited`);
    assert.deepEqual([g.audit!.candidates, g.audit!.checked, g.audit!.caught], [5, n, 0]);
    for (const i of g.audit!.instances)
      assert.deepEqual(
        [UNSAT.includes(i.instance), i.verdict, i.status, i.answer, i.check.kind, i.check.ok],
        [true, 'ok', 'solved', 'UNSAT', 'drat', true],
        i.instance,
      );
    assert.equal(
      g.detail.replace(/PAR-2 [\d.]+ s/, 'PAR-2 x s'),
      `7/7 solved, PAR-2 x s; audit: the proofs of ${n} of 5 UNSAT answers checked, as their runs wrote them; ${n} verified`,
    );
    // The document's instances: the three checked ones with their proof's verdict, every UNSAT answer with its proof's size.
    const checked = e.doc.instances.filter((i) => i.check.kind === 'drat');
    assert.deepEqual(checked.map((i) => i.instance).sort(), g.audit!.instances.map((i) => i.instance).sort());
    assert.ok(e.doc.instances.filter((i) => i.answer === 'UNSAT').every((i) => i.proof && i.proof.bytes > 0));
    const runs = storedRuns(ws);
    assert.equal(new Set(runs.map((r) => r.key)).size, 7, 'no run of its own for the audit');
    assert.deepEqual(fs.readdirSync(proofRoot(scratch)), []);
    // Evaluated again: the two SAT answers and the checked UNSAT ones are reused with their evidence; the
    // unchecked ones ran again (their proofs went with the first evaluation's hold).
    const again = await evaluate(ws, honest(), config('{ min: 0, share: 0.01 }', `evaluation: { scratch_dir: ${scratch} }\n`));
    assert.equal(perfGate(again).reused, 2 + n);
  });

  it('draws the sample from the injected random source: different draws audit different instances', async () => {
    const cadical = honest();
    const cfg = config('{ min: 1, share: 0 }');
    const picked = async (seed: number) =>
      (await evaluate(workspace(), cadical, cfg, seededTopUp(seed))).doc.gates.find((g) => g.gate === 'perf')!.audit!.instances.map((i) => i.instance);
    const first = await picked(3);
    assert.deepEqual(await picked(3), first, 'the same draw, the same instance');
    const all = new Set<string>(first);
    for (let seed = 4; seed < 12 && all.size < 3; seed++) for (const n of await picked(seed)) all.add(n);
    assert.ok(all.size >= 3, `only ${[...all].join(', ')} were ever audited`);
    assert.ok(
      [...all].every((n) => UNSAT.includes(n)),
      'only UNSAT answers are audited',
    );
  });

  it('checks the proofs of answers drawn as their runs end beside the remaining runs, in the same slots', async () => {
    const statuses: string[] = [];
    let last = -1;
    const e = await evaluate(
      workspace(),
      honest(),
      config('{ min: 1, share: 0 }'),
      { admit: () => true, index: () => 0 },
      {
        onStatus: (_g, m) => statuses.push(m),
        onResult: (_g, _r, done, total) => {
          if (done === total) last = statuses.length;
        },
      },
    );
    assert.equal(e.verdict, 'pass', JSON.stringify(e.doc.gates.map((g) => g.detail)));
    const audit = perfGate(e).audit!;
    // Every UNSAT answer was drawn (the injected draw admits all): more than the minimum of one.
    assert.deepEqual(
      audit.instances.map((i) => [i.instance, i.verdict]),
      UNSAT.slice()
        .sort()
        .map((n) => [n, 'ok']),
    );
    const checks = statuses.filter((m) => m.startsWith('audit: checking the proof of '));
    assert.ok(checks.length >= 1, statuses.join('\n'));
    assert.ok(
      statuses.slice(0, last).some((m) => m.startsWith('audit: checking the proof of ')),
      `no check began before the last run ended:\n${statuses.join('\n')}`,
    );
  });

  it('min 0, share 0 turns the audit off: no proof required, no audit in the document, no drat-trim needed', async () => {
    const ws = workspace();
    const cfg = config('{ min: 0, share: 0 }');
    const e = await evaluate(ws, honest(), cfg);
    assert.equal(e.verdict, 'pass');
    assert.equal(perfGate(e).audit, undefined);
    assert.equal(storedRuns(ws).length, 7, 'perf runs only');
    assert.equal(e.stages[0]!.audit, undefined);
    // Without any drat-trim, an audited perf stage is a setup error (nothing runs); an unaudited one is not.
    const keys = ['SATLUTION_DRAT_TRIM', 'SATLUTION_DEV_CACHE', 'PATH'] as const;
    const saved = keys.map((k) => process.env[k]);
    try {
      process.env.SATLUTION_DRAT_TRIM = '';
      process.env.SATLUTION_DEV_CACHE = tempDir();
      process.env.PATH = tempDir();
      // (This PATH hides bubblewrap too: these plans are about drat-trim, so they ask for no sandbox.)
      const audited = config('', 'sandbox: off\n');
      const unaudited = config('{ min: 0, share: 0 }', 'sandbox: off\n');
      await assert.rejects(
        plannedStages({ ws, config: audited, overrides: { stage: 'perf' } }),
        (err: Error) =>
          err instanceof EvaluationSetupError &&
          /perf audit/.test(err.message) &&
          /Set Up drat-trim/.test(err.message) &&
          !/scripts\//.test(err.message) &&
          /stages\.perf\.audit\.min: 0 and share: 0/.test(err.message),
      );
      assert.equal((await plannedStages({ ws, config: unaudited, overrides: { stage: 'perf' } })).length, 1);
      assert.equal(
        (await plannedStages({ ws, config: audited, overrides: { stage: 'perf', noProofs: true } }))[0]!.audit,
        undefined,
        '--no-proofs turns the audit off too',
      );
    } finally {
      keys.forEach((k, i) => (saved[i] === undefined ? delete process.env[k] : (process.env[k] = saved[i])));
    }
  });
});
