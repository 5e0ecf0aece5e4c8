// Benchmark: the Dashboard at scale. Writes a synthetic workspace of 3 baselines and 100 cycles on
// 1,000 perf instances (real file formats: candidates.json/.jsonl, cycles.jsonl, evals/*.json,
// usage.jsonl), builds the dashboard data from disk, then loads the built dist/media/dashboard.js in
// headless Chromium inside a harness page with the webviews' exact CSP and a stub acquireVsCodeApi
// that answers like the extension. Prints: build time, payload sizes, time to first full render, to
// switch to the cactus plot with 5 compared candidates, to sort and filter the 1,000-row table, and to
// show the Verdicts tab with a decision's 1,000 same-session pairs (calibration.json, duels/*.json and
// challengers rejected early by racing are part of the workspace). Also
// writes screenshots of every tab in light, dark and high-contrast themes to
// .test-artifacts/dashboard-*.png, and fails on CSP violations or page errors.
// Run: npm run bench -- dashboard-render   (CHROMIUM=/path/to/chromium to choose the browser)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildDashboard, DashboardSource, type DashboardBuild } from '../src/core/dashboard/dashboardData';
import type { DashCandidate } from '../src/core/dashboard/dashboardSchema';
import type { CycleState } from '../src/core/store/cycleState';
import type { EvalDoc } from '../src/core/eval/evalDoc';
import type { CalibrationDoc } from '../src/core/decide/calibration';
import { compareRuns } from '../src/core/decide/comparison';
import type { DuelDoc } from '../src/core/decide/duels';
import { prng } from '../src/core/stats/prng';
import { DROP_BELOW, futility, type SeenPair } from '../src/core/decide/race';
import { type RaceDoc } from '../src/core/eval/evalDoc';
import { RacingSchema } from '../src/core/config/schema';
import type { InstanceResult, RunStatus } from '../src/core/run/result';
import type { UsageRecord } from '../src/core/llm/usage';
import type { CandidateRecord } from '../src/core/store/candidates';

const ROOT = path.resolve(__dirname, '..', '..');
const ART = path.join(ROOT, '.test-artifacts');
const CYCLES = Number(process.env.BENCH_CYCLES ?? 100);
const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 1000);
const T = 5000;
const ORIGIN = 'https://webview.test';
const BASELINES = ['kissat', 'cadical', 'minisat'];

// ---- a synthetic workspace ------------------------------------------------------------------------

const FAMILIES = [
  'bmc',
  'crypto',
  'scheduling',
  'planning',
  'hwmcc',
  'graph-coloring',
  'pigeonhole',
  'random-3sat',
  'sgen',
  'argumentation',
  'software-verif',
  'termination',
];

function writeWorkspace(ws: string): void {
  const rnd = prng(42);
  const gauss = () => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
  const inst = Array.from({ length: INSTANCES }, (_, i) => {
    const family = FAMILIES[i % FAMILIES.length]!;
    const u = rnd();
    return {
      name: `${family}/${family}-${String(i).padStart(4, '0')}.cnf.xz`,
      family,
      truth: (u < 0.5 ? 'SAT' : 'UNSAT') as 'SAT' | 'UNSAT',
      known: u < 0.9,
      hard: Math.exp(5.9 + 2.4 * gauss()),
      kind: rnd(),
    };
  });
  const state = path.join(ws, '.satlution');
  fs.mkdirSync(path.join(state, 'evals'), { recursive: true });
  fs.mkdirSync(path.join(state, 'duels'), { recursive: true });
  fs.writeFileSync(
    path.join(ws, 'satlution.yaml'),
    'version: 1\nseeds:\n  - { name: kissat, source: ./kissat, primary: true }\nstrategy:\n  min_improvement_pct: 2\nevaluation:\n  decide_on: cpu\n',
  );
  const at = (k: number) => new Date(Date.UTC(2026, 10, 1) + k * 3_600_000).toISOString();
  // The noise band: the champion against itself, side by side (decide/calibration.ts).
  const BAND = 3.1;
  const RACING = RacingSchema.parse({});
  const cal: CalibrationDoc = {
    at: at(1),
    scope: { machine: 'bench-host / Synthetic CPU x16', runner: 'local', set: '0123456789abcdef', timeout_s: T },
    session: '20261101T010000-00000000',
    solver: 'SATLUTION_0',
    n: INSTANCES,
    wall: { band_pct: 4.6, diff_pct: -0.8, p: 0.41, spread_median_pct: 3.2, spread_p90_pct: 9.5, aa_significant: false },
    cpu: { band_pct: BAND, diff_pct: 0.3, p: 0.66, spread_median_pct: 1.4, spread_p90_pct: 4.1, aa_significant: false },
    alpha: 0.05,
  };
  fs.writeFileSync(path.join(state, 'calibration.json'), JSON.stringify(cal));
  const results = (speed: number, sat: number, seed: number): InstanceResult[] => {
    const r = prng(seed);
    return inst.map((x) => {
      const t = x.hard * speed * (x.truth === 'SAT' ? sat : 1 / sat) * Math.exp(0.35 * (r() - 0.5) * 2);
      const solved = t < T;
      const status: RunStatus = solved ? 'solved' : r() < 0.03 ? 'memout' : 'timeout';
      return {
        instance: x.name,
        family: x.family,
        expected: x.known ? x.truth : null,
        expected_from: x.known ? 'meta' : 'none',
        answer: solved ? x.truth : null,
        status,
        time_s: solved ? t : status === 'memout' ? T * r() : T,
        // CPU time a little under wall time, as a single-threaded solver's is.
        cpu_s: solved ? t * (0.95 + 0.03 * r()) : status === 'timeout' ? T : null,
        mem_mb: Math.round(50 + 4000 * r()) / 10,
        exit_code: solved ? (x.truth === 'SAT' ? 10 : 20) : null,
        signal: solved ? null : 'SIGKILL',
        check: solved
          ? { kind: x.truth === 'SAT' ? 'model' : 'none', ok: x.truth === 'SAT' ? true : null, time_s: 0.01, detail: '' }
          : { kind: 'none', ok: null, time_s: 0, detail: '' },
        detail: solved ? '' : status === 'memout' ? `exceeded 8192 MB on ${x.name}` : `no answer within ${T} s on ${x.name}`,
      };
    });
  };
  const metrics = (rs: InstanceResult[]) => {
    const p2 = (xs: InstanceResult[]) => (xs.length ? xs.reduce((s, r) => s + (r.status === 'solved' ? r.time_s : 2 * T), 0) / xs.length : null);
    const truth = (r: InstanceResult) => r.expected ?? r.answer;
    const solved = rs.filter((r) => r.status === 'solved');
    return {
      n: rs.length,
      solved: solved.length,
      solved_sat: solved.filter((r) => r.answer === 'SAT').length,
      solved_unsat: solved.filter((r) => r.answer === 'UNSAT').length,
      par2: p2(rs)!,
      par2_sat: p2(rs.filter((r) => truth(r) === 'SAT')),
      par2_unsat: p2(rs.filter((r) => truth(r) === 'UNSAT')),
      solved_within: {},
      mem_avg_mb: 200,
      mem_max_mb: 800,
      wrong: 0,
      vbs_match: true,
      unique_solved: null,
    };
  };
  const evalFile = (dir: string, e: Partial<EvalDoc> & Pick<EvalDoc, 'verdict' | 'gates'>, k: number) =>
    fs.writeFileSync(
      path.join(state, 'evals', `${dir}.json`),
      JSON.stringify({
        solver: path.join(ws, dir),
        solver_hash: (k + 1).toString(16).padStart(64, 'a'),
        runner: 'local',
        timeout_s: T,
        mem_limit_mb: 8192,
        evaluated_at: at(k),
        instances: [],
        metrics: null,
        ...e,
      }),
    );
  const passGates = (m: ReturnType<typeof metrics>) => [
    { gate: 'comply', ok: true, detail: 'compliance 100%', failures: [] },
    { gate: 'build', ok: true, detail: 'built in 41.0 s', failures: [] },
    { gate: 'smoke', ok: true, detail: '40/40 solved', failures: [] },
    { gate: 'verify', ok: true, detail: '60/60 solved', failures: [] },
    { gate: 'perf', ok: true, detail: `${m.solved}/${m.n} solved`, failures: [], metrics: m },
  ];
  const candidates: CandidateRecord[] = [];
  const log: unknown[] = [];
  BASELINES.forEach((seed, k) => {
    const dir = `SATLUTION_${k}`;
    candidates.push({ id: k, dir, parent: null, seed, status: 'seed', created_at: at(0), updated_at: at(0) });
    const rs = results([1, 1.35, 3.2][k]!, [1, 1.15, 0.8][k]!, 100 + k);
    const m = metrics(rs);
    evalFile(dir, { verdict: 'pass', instances: rs, metrics: m, gates: passGates(m) } as Partial<EvalDoc> as EvalDoc, k);
  });
  log.push({ type: 'champion', at: at(0), id: 0 });
  let championRs = (JSON.parse(fs.readFileSync(path.join(state, 'evals', 'SATLUTION_0.json'), 'utf8')) as EvalDoc).instances;
  let champion = 0;
  let championPar2 = JSON.parse(fs.readFileSync(path.join(state, 'evals', 'SATLUTION_0.json'), 'utf8')).metrics.par2 as number;
  let speed = 1;
  const cycles: CycleState[] = [];
  const usage: UsageRecord[] = [];
  const judge: Record<string, unknown>[] = [];
  const gates = ['comply', 'build', 'smoke', 'verify', 'perf'] as const;
  for (let c = 1; c <= CYCLES; c++) {
    const id = BASELINES.length + c - 1;
    const dir = `SATLUTION_${id}`;
    const k = c + 2;
    const parent = champion;
    const u = rnd();
    const failAt = u < 0.26 ? gates[Math.min(4, Math.floor(rnd() * 5))] : undefined;
    let outcome: string;
    let changed = false;
    if (failAt && failAt !== 'perf') {
      const i = gates.indexOf(failAt);
      const g = gates.slice(0, i + 1).map((gate, j) => ({
        gate,
        ok: j < i,
        detail:
          j < i
            ? 'ok'
            : {
                comply: '1 rule violation, first: R02 instance_name_leak src/solve.c:872',
                build: 'src/reduce.c:214: error: expected ; before } token',
                smoke: '2 of 40 instances failed: crash: segfault (SIGSEGV) on smoke/add16.cnf',
                verify: '1 of 60 instances failed: UNSAT claimed on php-9-8.cnf, drat-trim rejected the proof',
                perf: '',
              }[gate],
        failures: [],
      }));
      evalFile(dir, { verdict: 'fail', solver_hash: null, gates: g } as Partial<EvalDoc> as EvalDoc, k);
      outcome = `failed the ${failAt} gate`;
    } else {
      const next = speed * Math.exp(0.15 * (rnd() - 0.6));
      const rs = results(next, 1 + 0.1 * (rnd() - 0.5), 1000 + c);
      const raced = !failAt && next > speed * 1.03 ? race(rs, championRs, championPar2) : undefined;
      if (raced) {
        // Rejected early by racing: only the instances it ran, capped runs at their cap (decide/race.ts).
        const m = metrics(raced.ran);
        evalFile(dir, { verdict: 'pass', instances: raced.ran, metrics: m, race: raced.doc, gates: passGates(m) } as Partial<EvalDoc> as EvalDoc, k);
        candidates.push({ id, dir, parent, status: 'evaluated', created_at: at(k - 1), updated_at: at(k) });
        cycles.push({
          cycle: c,
          step: 'done',
          parent,
          candidate: id,
          title: `tune option ${c}`,
          started_at: at(k - 1),
          updated_at: at(k),
          outcome: `SATLUTION_${champion} stays champion (${dir} rejected early by racing after ${raced.doc.ran} of ${raced.doc.of} instances: ${raced.doc.reason})`,
          champion_changed: false,
          proposals: [],
          hint: null,
          island: null,
          selected: null,
        });
        continue;
      }
      if (failAt === 'perf') {
        const w = rs.findIndex((r) => r.status === 'solved');
        rs[w] = { ...rs[w]!, status: 'wrong', detail: `SAT claimed on ${rs[w]!.instance}, but it is UNSAT (meta.csv)` };
      }
      const m = metrics(rs);
      const g = passGates(m);
      if (failAt === 'perf') g[4] = { ...g[4]!, ok: false, detail: `1 of ${m.n} instances failed: ${rs.find((r) => r.status === 'wrong')!.detail}` };
      evalFile(dir, { verdict: failAt ? 'fail' : 'pass', instances: rs, metrics: m, gates: g } as Partial<EvalDoc> as EvalDoc, k);
      // A judge whose score loosely tracks the gain (as SIFT records it), for the Strategy tab.
      const gain = (100 * (championPar2 - m.par2)) / championPar2;
      judge.push({
        type: 'score',
        at: at(k),
        cycle: c,
        candidate: id,
        score: Math.min(10, Math.max(1, Math.round(5 + gain / 2 + 3 * (rnd() - 0.5)))),
        rationale: 'bench',
        selected: true,
      });
      judge.push({ type: 'measured', at: at(k), cycle: c, candidate: id, par2: m.par2, parent_par2: championPar2, gain_pct: gain });
      // Measured in full: it meets the champion side by side (a duel), and the promotion rule decides on that alone.
      const cmp = failAt ? undefined : duel(c, `SATLUTION_${champion}`, dir, championRs, rs, at(k));
      const duelGain = cmp && cmp.par2A > 0 ? (100 * (cmp.par2A - cmp.par2B)) / cmp.par2A : 0;
      if (cmp?.verdict === 'B faster' && duelGain >= BAND) {
        champion = id;
        championPar2 = m.par2;
        championRs = rs;
        speed = next;
        changed = true;
        log.push({ type: 'champion', at: at(k), id });
        outcome = `${dir} is the new champion (side by side on CPU time: PAR-2 ${cmp.par2A.toFixed(2)} -> ${cmp.par2B.toFixed(2)} s, ${duelGain.toFixed(1)}% faster, p = ${cmp.wilcoxon.p.toPrecision(2)}, n = ${cmp.common}; over the ${BAND}% margin (the measured noise band))`;
      } else
        outcome = failAt
          ? 'failed the perf gate'
          : `SATLUTION_${champion} stays champion (${cmp!.verdict} side by side (${duelGain.toFixed(1)}%, p = ${cmp!.wilcoxon.p.toPrecision(2)}, n = ${cmp!.common}, noise band ${BAND}%))`;
    }
    candidates.push({
      id,
      dir,
      parent,
      status: failAt ? 'failed' : 'evaluated',
      created_at: at(k - 1),
      updated_at: at(k),
      ...(failAt ? { detail: `failed the ${failAt} gate: see evals` } : {}),
    });
    cycles.push({
      cycle: c,
      step: 'done',
      parent,
      candidate: id,
      title: `tune option ${c}`,
      started_at: at(k - 1),
      updated_at: at(k),
      outcome,
      champion_changed: changed,
      proposals: [],
      hint: null,
      island: null,
      selected: null,
    });
    for (const role of ['planner', 'coder', 'coder', 'judge'] as const)
      usage.push({
        at: at(k),
        run: 'bench',
        cycle: c,
        role,
        model: 'model-x',
        usage: {
          input: Math.round(20000 + 60000 * rnd()),
          output: Math.round(2000 + 8000 * rnd()),
          cacheRead: Math.round(40000 * rnd()),
          cacheWrite: Math.round(5000 * rnd()),
        },
        usd: 0.05 + 0.3 * rnd(),
      });
  }
  /** A side-by-side measurement of the challenger with the champion, kept as decide/measureTogether.ts keeps it. */
  function duel(cycle: number, a: string, b: string, ra: InstanceResult[], rb: InstanceResult[], when: string) {
    const cmp = compareRuns(ra, rb, T, { on: 'cpu', bandPct: BAND, resamples: 400 });
    const wall = compareRuns(ra, rb, T, { on: 'wall', resamples: 50 });
    const byB = new Map(rb.map((r) => [r.instance, r]));
    const order = [...ra].sort((x, y) => x.instance.localeCompare(y.instance));
    const brief = (r: InstanceResult) => ({ status: r.status, time_s: r.time_s, cpu_s: r.cpu_s ?? null });
    const session = `${when.replace(/[-:.]/g, '').slice(0, 15)}-${String(cycle).padStart(8, '0')}`;
    const doc: DuelDoc = {
      session,
      purpose: 'decision',
      cycle,
      a: { dir: path.join(ws, a), hash: 'a'.repeat(64) },
      b: { dir: path.join(ws, b), hash: 'b'.repeat(64) },
      set: path.join(ws, 'benchmarks', 'perf'),
      runner: 'local',
      timeout_s: T,
      on: 'cpu',
      started_at: when,
      ended_at: when,
      block: 8,
      together: true,
      pairs: order.map((x, i) => ({ instance: x.instance, order: Math.floor(i / 8) % 2 === 0 ? 'AB' : 'BA', a: brief(x), b: brief(byB.get(x.instance)!) })),
      comparison: {
        par2A: cmp.par2A,
        par2B: cmp.par2B,
        diff: cmp.diff,
        ci95: cmp.ci95,
        p: cmp.wilcoxon.p,
        n: cmp.common,
        verdict: cmp.verdict,
        band_pct: BAND,
        wall_par2A: wall.par2A,
        wall_par2B: wall.par2B,
      },
      fatal: null,
    };
    fs.writeFileSync(path.join(state, 'duels', `${session}.json`), JSON.stringify(doc));
    return cmp;
  }

  /** Racing against the champion's times, longest first, capped at 3x, dropped by the futility rule; the challenger's runs and the rule's evidence, or undefined when it would have survived. */
  function race(rs: InstanceResult[], ref: InstanceResult[], refPar2: number): { ran: InstanceResult[]; doc: RaceDoc } | undefined {
    const p2 = (r: InstanceResult) => (r.status === 'solved' ? (r.cpu_s ?? r.time_s) : 2 * T);
    const refOf = new Map(ref.map((r) => [r.instance, p2(r)]));
    const order = [...rs].sort((x, y) => (refOf.get(y.instance) ?? 0) - (refOf.get(x.instance) ?? 0));
    const ran: InstanceResult[] = [];
    let lb = 0;
    let champ = 0;
    let capped = 0;
    let spent = 0;
    const pairs: SeenPair[] = [];
    for (const r of order) {
      const refT = refOf.get(r.instance) ?? 2 * T;
      const cap = refT >= T ? T : Math.min(T, Math.max(1, 3 * refT));
      const t = p2(r);
      const stopped = t > cap && cap < T;
      ran.push(
        stopped
          ? { ...r, status: 'timeout', answer: null, time_s: cap, cpu_s: cap, detail: `stopped at its cap (${cap.toFixed(2)} s, 3x the champion's time)` }
          : r,
      );
      if (stopped) capped++;
      lb += stopped ? cap : t;
      champ += refT;
      spent += stopped ? cap : Math.min(t, T);
      // The race's futility rule (decide/race.ts), on the pairs so far, capped runs at their cap.
      pairs.push({ a: refT, b: stopped ? cap : t, solvedA: refT < T, solvedB: stopped || r.status === 'solved', timeout: refT >= T });
      const rest = order.slice(ran.length).map((x) => refOf.get(x.instance) ?? 2 * T);
      const call = futility(pairs, rest, {
        of: rs.length,
        timeoutS: T,
        test: { level: 0.005 / 3, rankBy: 'par2', marginPct: 5 },
        minInstances: RACING.min_instances,
      });
      if (call.drop) {
        return {
          ran,
          doc: {
            outcome: 'rejected early',
            on: 'cpu',
            ran: ran.length,
            of: rs.length,
            capped,
            champion_reruns: 0,
            challenger_s: lb,
            champion_s: champ,
            speedup_pct: call.speedupPct,
            pass_chance: call.chance,
            drop_below: DROP_BELOW,
            estimated_par2: (refPar2 * lb) / champ,
            spent_s: spent,
            reason: call.reason,
          },
        };
      }
      if (ran.length > rs.length / 2) return undefined;
    }
    return undefined;
  }

  fs.writeFileSync(path.join(state, 'candidates.json'), JSON.stringify({ version: 1, champion, candidates }));
  fs.writeFileSync(path.join(state, 'candidates.jsonl'), log.map((l) => JSON.stringify(l)).join('\n') + '\n');
  fs.writeFileSync(path.join(state, 'cycles.jsonl'), cycles.map((l) => JSON.stringify(l)).join('\n') + '\n');
  fs.writeFileSync(path.join(state, 'usage.jsonl'), usage.map((l) => JSON.stringify(l)).join('\n') + '\n');
  fs.writeFileSync(path.join(state, 'judge.jsonl'), judge.map((l) => JSON.stringify(l)).join('\n') + '\n');
}

// ---- the harness page --------------------------------------------------------------------------------

/** Theme variables as VS Code sets them (Light Modern, Dark Modern, Dark High Contrast; read from a real workbench). */
const THEMES: Record<string, { body: string; vars: Record<string, string> }> = {
  light: {
    body: 'vscode-light',
    vars: {
      foreground: '#3b3b3b',
      descriptionForeground: '#717171',
      'editor-background': '#ffffff',
      'editorWidget-background': '#f8f8f8',
      'widget-border': '#e5e5e5',
      'editorHoverWidget-background': '#f8f8f8',
      'editorHoverWidget-foreground': '#3b3b3b',
      'editorHoverWidget-border': 'rgba(59, 59, 59, 0.2)',
      'editorGroup-border': '#e5e5e5',
      'panel-border': '#e5e5e5',
      'charts-blue': '#0063d3',
      'charts-orange': 'rgba(234, 92, 0, 0.33)',
      'charts-green': '#388a34',
      'charts-purple': '#652d90',
      'charts-red': '#e51400',
      'charts-yellow': '#bf8803',
      'charts-foreground': '#3b3b3b',
      'charts-lines': 'rgba(59, 59, 59, 0.5)',
      'terminal-ansiCyan': '#0598bc',
      'terminal-ansiMagenta': '#bc05bc',
      'terminal-ansiBrightBlue': '#3b8eea',
      'terminal-ansiBrightGreen': '#14ce14',
      'terminal-ansiBrightBlack': '#666666',
      'button-background': '#005fb8',
      'button-foreground': '#ffffff',
      'button-hoverBackground': '#0258a8',
      'button-border': 'rgba(0, 0, 0, 0.1)',
      'button-secondaryBackground': '#e5e5e5',
      'button-secondaryForeground': '#3b3b3b',
      'button-secondaryHoverBackground': '#cccccc',
      focusBorder: '#005fb8',
      'badge-background': '#cccccc',
      'badge-foreground': '#3b3b3b',
      'textLink-foreground': '#005fb8',
      'textLink-activeForeground': '#005fb8',
      'testing-iconPassed': '#73c991',
      errorForeground: '#f85149',
      'editorWarning-foreground': '#bf8803',
      'toolbar-hoverBackground': 'rgba(184, 184, 184, 0.31)',
      'input-background': '#ffffff',
      'input-foreground': '#3b3b3b',
      'input-border': '#cecece',
      'input-placeholderForeground': '#767676',
      'settings-textInputBackground': '#ffffff',
      'settings-textInputBorder': '#cecece',
      'settings-textInputForeground': '#3b3b3b',
      'settings-checkboxBackground': '#f8f8f8',
      'settings-checkboxBorder': '#cecece',
      'settings-checkboxForeground': '#3b3b3b',
      'settings-dropdownBackground': '#ffffff',
      'settings-dropdownBorder': '#cecece',
      'settings-dropdownForeground': '#3b3b3b',
      'settings-dropdownListBorder': '#c8c8c8',
      'settings-headerBorder': '#e5e5e5',
      'panelTitle-activeBorder': '#005fb8',
      'panelTitle-activeForeground': '#3b3b3b',
      'panelTitle-inactiveForeground': '#3b3b3b',
      'list-activeSelectionBackground': '#e8e8e8',
      'list-activeSelectionForeground': '#000000',
      'list-inactiveSelectionBackground': '#e4e6f1',
      'list-hoverBackground': '#f2f2f2',
      'list-focusOutline': '#005fb8',
      'scrollbarSlider-background': 'rgba(100, 100, 100, 0.4)',
    },
  },
  dark: {
    body: 'vscode-dark',
    vars: {
      foreground: '#cccccc',
      descriptionForeground: '#9d9d9d',
      'editor-background': '#1f1f1f',
      'editorWidget-background': '#202020',
      'widget-border': '#313131',
      'editorHoverWidget-background': '#202020',
      'editorHoverWidget-foreground': '#cccccc',
      'editorHoverWidget-border': 'rgba(204, 204, 204, 0.2)',
      'editorGroup-border': 'rgba(255, 255, 255, 0.09)',
      'panel-border': '#2b2b2b',
      'charts-blue': '#59a4f9',
      'charts-orange': 'rgba(234, 92, 0, 0.33)',
      'charts-green': '#89d185',
      'charts-purple': '#b180d7',
      'charts-red': '#f14c4c',
      'charts-yellow': '#cca700',
      'charts-foreground': '#cccccc',
      'charts-lines': 'rgba(204, 204, 204, 0.5)',
      'terminal-ansiCyan': '#11a8cd',
      'terminal-ansiMagenta': '#bc3fbc',
      'terminal-ansiBrightBlue': '#3b8eea',
      'terminal-ansiBrightGreen': '#23d18b',
      'terminal-ansiBrightBlack': '#666666',
      'button-background': '#0078d4',
      'button-foreground': '#ffffff',
      'button-hoverBackground': '#026ec1',
      'button-border': 'rgba(255, 255, 255, 0.07)',
      'button-secondaryBackground': '#313131',
      'button-secondaryForeground': '#cccccc',
      'button-secondaryHoverBackground': '#3c3c3c',
      focusBorder: '#0078d4',
      'badge-background': '#616161',
      'badge-foreground': '#f8f8f8',
      'textLink-foreground': '#4daafc',
      'textLink-activeForeground': '#4daafc',
      'testing-iconPassed': '#73c991',
      errorForeground: '#f85149',
      'editorWarning-foreground': '#cca700',
      'toolbar-hoverBackground': 'rgba(90, 93, 94, 0.31)',
      'input-background': '#313131',
      'input-foreground': '#cccccc',
      'input-border': '#3c3c3c',
      'input-placeholderForeground': '#989898',
      'settings-textInputBackground': '#313131',
      'settings-textInputBorder': '#3c3c3c',
      'settings-textInputForeground': '#cccccc',
      'settings-checkboxBackground': '#313131',
      'settings-checkboxBorder': '#3c3c3c',
      'settings-checkboxForeground': '#cccccc',
      'settings-dropdownBackground': '#313131',
      'settings-dropdownBorder': '#3c3c3c',
      'settings-dropdownForeground': '#cccccc',
      'settings-dropdownListBorder': '#454545',
      'settings-headerBorder': '#2b2b2b',
      'panelTitle-activeBorder': '#0078d4',
      'panelTitle-activeForeground': '#cccccc',
      'panelTitle-inactiveForeground': '#9d9d9d',
      'list-activeSelectionBackground': '#04395e',
      'list-activeSelectionForeground': '#ffffff',
      'list-inactiveSelectionBackground': '#37373d',
      'list-hoverBackground': '#2a2d2e',
      'list-focusOutline': '#0078d4',
      'scrollbarSlider-background': 'rgba(121, 121, 121, 0.4)',
    },
  },
  hc: {
    body: 'vscode-high-contrast',
    vars: {
      foreground: '#ffffff',
      descriptionForeground: 'rgba(255, 255, 255, 0.7)',
      'editor-background': '#000000',
      'editorWidget-background': '#0c141f',
      'widget-border': '#6fc3df',
      contrastBorder: '#6fc3df',
      contrastActiveBorder: '#f38518',
      'editorHoverWidget-background': '#0c141f',
      'editorHoverWidget-foreground': '#ffffff',
      'editorHoverWidget-border': '#6fc3df',
      'editorGroup-border': '#6fc3df',
      'panel-border': '#6fc3df',
      'charts-blue': '#59a4f9',
      'charts-green': '#89d185',
      'charts-purple': '#b180d7',
      'charts-red': '#f48771',
      'charts-yellow': '#ffd370',
      'charts-foreground': '#ffffff',
      'charts-lines': 'rgba(255, 255, 255, 0.5)',
      'terminal-ansiCyan': '#00cdcd',
      'terminal-ansiMagenta': '#cd00cd',
      'terminal-ansiBrightBlue': '#5c5cff',
      'terminal-ansiBrightGreen': '#00ff00',
      'terminal-ansiBrightBlack': '#7f7f7f',
      'button-background': '#000000',
      'button-foreground': '#ffffff',
      'button-border': '#6fc3df',
      'button-secondaryBackground': '#000000',
      'button-secondaryForeground': '#ffffff',
      focusBorder: '#f38518',
      'badge-background': '#000000',
      'badge-foreground': '#ffffff',
      'textLink-foreground': '#21a6ff',
      'textLink-activeForeground': '#21a6ff',
      'testing-iconPassed': '#73c991',
      errorForeground: '#f48771',
      'editorWarning-foreground': '#ffd370',
      'input-background': '#000000',
      'input-foreground': '#ffffff',
      'input-border': '#6fc3df',
      'input-placeholderForeground': 'rgba(255, 255, 255, 0.7)',
      'settings-textInputBackground': '#000000',
      'settings-textInputBorder': '#6fc3df',
      'settings-textInputForeground': '#ffffff',
      'settings-checkboxBackground': '#000000',
      'settings-checkboxBorder': '#6fc3df',
      'settings-checkboxForeground': '#ffffff',
      'settings-dropdownBackground': '#000000',
      'settings-dropdownBorder': '#6fc3df',
      'settings-dropdownForeground': '#ffffff',
      'settings-dropdownListBorder': '#6fc3df',
      'settings-headerBorder': '#6fc3df',
      'panelTitle-activeBorder': '#f38518',
      'panelTitle-activeForeground': '#ffffff',
      'panelTitle-inactiveForeground': '#ffffff',
      'list-activeSelectionForeground': '#ffffff',
      'list-hoverBackground': 'rgba(255, 255, 255, 0.1)',
      'list-focusOutline': '#f38518',
    },
  },
};
const FONTS = {
  'font-family': 'system-ui, "Segoe UI", Ubuntu, "Droid Sans", sans-serif',
  'font-size': '13px',
  'font-weight': 'normal',
  'editor-font-family': '"DejaVu Sans Mono", monospace',
};

/** The same policy as src/extension/webviews/html.ts, with the harness origin as the webview's cspSource. */
const CSP = `default-src 'none'; style-src ${ORIGIN}; img-src ${ORIGIN}; font-src ${ORIGIN}; script-src 'nonce-bench'`;
const HTML = (body: string) => `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${CSP}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <link rel="stylesheet" href="${ORIGIN}/media/dashboard.css">
  <title>Dashboard</title>
</head>
<body class="${body}">
  <main id="root" aria-live="polite"></main>
  <script nonce="bench" src="${ORIGIN}/dist/media/dashboard.js"></script>
</body>
</html>`;

/** Runs before the page's scripts (outside its CSP, as VS Code's own webview host does). */
const INIT = `
window.__posted = [];
window.__problems = [];
window.__state = window.__initialState;
document.addEventListener('securitypolicyviolation', (e) => window.__problems.push('CSP: ' + e.violatedDirective + ' ' + e.blockedURI));
window.acquireVsCodeApi = () => ({
  postMessage: (m) => {
    window.__posted.push(m);
    if (m.type === 'select') window.__host(m).then((answer) => { window.__answeredAt = performance.now(); window.postMessage(answer, '*'); });
    if (m.type === 'pairs') window.__pairs(m).then((answer) => window.postMessage(answer, '*'));
  },
  getState: () => window.__state,
  setState: (s) => (window.__state = s),
});
// As VS Code does: theme variables on <html> before the page's scripts run.
const applyVars = () => {
  for (const [k, v] of Object.entries(window.__vars)) document.documentElement.style.setProperty(k, v);
  document.documentElement.style.background = window.__vars['--vscode-editor-background'];
};
if (document.documentElement) applyVars();
else new MutationObserver((_, o) => { if (document.documentElement) { o.disconnect(); applyVars(); } }).observe(document, { childList: true });`;

/** Resolves with ms from `action` until the dashboard says it rendered what `until` wants (+ one frame). */
const TIMED = `(arg, action) => new Promise((resolve, reject) => {
  const t0 = performance.now();
  const timer = setTimeout(() => reject(new Error('no render within 20 s')), 20000);
  addEventListener('satlution:rendered', function f(e) {
    const d = e.detail;
    if (arg.tab && d.tab !== arg.tab) return;
    if (arg.columns && !d.columns) return;
    if (arg.pairs && !d.pairs) return;
    removeEventListener('satlution:rendered', f);
    const sync = performance.now() - t0;
    requestAnimationFrame(() => { clearTimeout(timer); resolve({ sync, frame: performance.now() - t0 }); });
  });
  action();
})`;

async function timed(page: Page, action: string, until: { tab?: string; columns?: boolean; pairs?: boolean } = {}): Promise<{ sync: number; frame: number }> {
  return page.evaluate(`(${TIMED})(${JSON.stringify(until)}, () => { ${action}; })`) as Promise<{ sync: number; frame: number }>;
}

async function openPage(browser: Browser, theme: string, build: DashboardBuild, initialState: unknown, size = { width: 1360, height: 900 }): Promise<Page> {
  const page = await browser.newPage({ viewport: size, deviceScaleFactor: 1 });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on(
    'console',
    (m) => (m.type() === 'error' || m.type() === 'warning' || /Content Security Policy/.test(m.text())) && problems.push(`console ${m.type()}: ${m.text()}`),
  );
  (page as Page & { problems?: string[] }).problems = problems;
  await page.route(`${ORIGIN}/**`, (route) => {
    const rel = new URL(route.request().url()).pathname.slice(1);
    if (rel === 'index.html') return route.fulfill({ contentType: 'text/html', body: HTML(THEMES[theme]!.body) });
    const file = path.join(ROOT, rel);
    if (!file.startsWith(ROOT + path.sep) || !fs.existsSync(file)) return route.fulfill({ status: 404, body: '' });
    return route.fulfill({ contentType: rel.endsWith('.css') ? 'text/css' : 'text/javascript', body: fs.readFileSync(file) });
  });
  // The extension's side of `select`: the columns of the requested candidates, for this data's version.
  await page.exposeFunction('__host', (m: { ids: number[] }) => ({ type: 'detail', version: build.data.version, columns: build.columns(m.ids) }));
  // And of `pairs`: a decision's duel, columnar.
  await page.exposeFunction('__pairs', async (m: { session: string }) => ({
    type: 'pairs',
    session: m.session,
    pairs: (await build.pairs(m.session)) ?? null,
  }));
  const vars = Object.fromEntries(Object.entries({ ...THEMES[theme]!.vars, ...FONTS }).map(([k, v]) => [`--vscode-${k}`, v]));
  await page.addInitScript(`window.__vars = ${JSON.stringify(vars)}; window.__initialState = ${JSON.stringify(initialState)};${INIT}`);
  await page.goto(`${ORIGIN}/index.html`);
  await page.waitForFunction('window.__posted.some((m) => m.type === "ready")');
  return page;
}

async function problemsOf(page: Page): Promise<string[]> {
  return [...((page as Page & { problems?: string[] }).problems ?? []), ...((await page.evaluate('window.__problems')) as string[])];
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${ms(s[Math.floor((s.length - 1) / 2)]!)} (min ${ms(s[0]!)}, n=${s.length})`;
};
const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

/** Timings, in the dark theme; the compared candidates come from the saved state, as after a reload.
 * Each figure is the median of several runs; a first render is timed on fresh pages. */
async function timings(browser: Browser, build: DashboardBuild, five: number[], measured: DashCandidate[]): Promise<string[]> {
  const data = build.data;
  const problems: string[] = [];
  const state = { ui: { tab: 'cycles', selected: five, chosen: true } };
  const post = `window.postMessage(${JSON.stringify({ type: 'data', data })}, '*')`;
  const firsts: number[] = [];
  let page: Page | undefined;
  for (let i = 0; i < 3; i++) {
    if (page) {
      problems.push(...(await problemsOf(page)));
      await page.close();
    }
    page = await openPage(browser, 'dark', build, state);
    firsts.push((await timed(page, post, { tab: 'cycles' })).frame);
  }
  page = page!;
  console.log(
    `first full render, fresh page (validate ${kb(Buffer.byteLength(post))}, header, compare bar, PAR-2 per cycle chart of ${CYCLES} cycles, to the next frame): ${stat(firsts)}`,
  );
  await page.waitForFunction('window.__posted.some((m) => m.type === "select")');
  await page.waitForTimeout(300);
  const tab = (t: string) => `document.querySelector('vscode-tab-header[data-tab=${t}]').click()`;
  const cactus: number[] = [];
  for (let i = 0; i < 5; i++) {
    cactus.push((await timed(page, tab('cactus'), { tab: 'cactus', columns: true })).frame);
    if (i < 4) await timed(page, tab('cycles'), { tab: 'cycles' });
  }
  console.log(`switch to the cactus plot, 5 compared + 3 baselines (${INSTANCES} instances each): ${stat(cactus)}`);
  const logAxis = (await timed(page, `document.querySelector('.t-cactus vscode-checkbox').shadowRoot.querySelector('label').click()`, { tab: 'cactus' })).frame;
  console.log(`cactus plot, logarithmic axis on: ${ms(logAxis)}`);
  const decided = build.data.verdicts.decisions.filter((x) => x.duel).length;
  const verdictTimes: number[] = [];
  for (let i = 0; i < 3; i++) {
    verdictTimes.push((await timed(page, tab('verdicts'), { tab: 'verdicts', pairs: true })).frame);
    await timed(page, tab('cactus'), { tab: 'cactus' });
  }
  const pairsBytes = Buffer.byteLength(
    JSON.stringify({ type: 'pairs', pairs: await build.pairs(build.data.verdicts.decisions.filter((x) => x.duel).at(-1)!.duel!.session) }),
  );
  console.log(
    `switch to the verdicts tab (${build.data.verdicts.decisions.length} decisions, ${decided} duels; the newest duel's ${INSTANCES} pairs as scatter and table, ${kb(pairsBytes)} asked for once): ${stat(verdictTimes)}`,
  );
  const adds: number[] = [];
  const hostPart: number[] = [];
  for (const c of measured.filter((x) => !five.includes(x.id)).slice(0, 3)) {
    const t0 = (await page.evaluate('performance.now()')) as number;
    adds.push(
      (
        await timed(page, `{ const s = document.querySelector('vscode-single-select.add'); s.value = '${c.id}'; s.dispatchEvent(new Event('change')); }`, {
          tab: 'cactus',
          columns: true,
        })
      ).frame,
    );
    hostPart.push(((await page.evaluate('window.__answeredAt')) as number) - t0);
  }
  console.log(
    `add a candidate on the cactus plot (select -> host -> columns -> validate -> redraw): ${stat(adds)}, of which the harness's host round trip ${stat(hostPart)}`,
  );
  const table = (await timed(page, tab('instances'), { tab: 'instances', columns: true })).frame;
  const rowsInDom = (await page.evaluate(`document.querySelectorAll('.table-scroll .trow').length`)) as number;
  const colsShown = (await page.evaluate(`document.querySelectorAll('.table-scroll .hrow.groups .cand').length`)) as number;
  console.log(`switch to the ${INSTANCES}-row table (${colsShown} candidates x status/time/answer): ${ms(table)}; ${rowsInDom} rows in the DOM`);
  const sorts: number[] = [];
  for (let i = 0; i < 6; i++) sorts.push((await timed(page, `document.querySelector('.th.c-time button.sort').click()`, { tab: 'instances' })).frame);
  const byName: number[] = [];
  for (let i = 0; i < 4; i++) byName.push((await timed(page, `document.querySelector('.th.c-instance button.sort').click()`, { tab: 'instances' })).frame);
  console.log(`sort ${INSTANCES} rows: by a candidate's time ${stat(sorts)}, by name ${stat(byName)}`);
  const setSel = (cls: string, value: string) =>
    `{ const s = document.querySelector('vscode-single-select.${cls}'); s.value = '${value}'; s.dispatchEvent(new Event('change')); }`;
  const filters: number[] = [];
  let shown = '';
  for (let i = 0; i < 3; i++) {
    filters.push((await timed(page, setSel('status-filter', 'differs'), { tab: 'instances' })).frame);
    shown = (await page.evaluate(`document.querySelector('.instances .shown').textContent`)) as string;
    filters.push((await timed(page, setSel('status-filter', 'all'), { tab: 'instances' })).frame);
  }
  const fam = (await timed(page, setSel('family', '=crypto'), { tab: 'instances' })).frame;
  const shownFam = (await page.evaluate(`document.querySelector('.instances .shown').textContent`)) as string;
  await timed(page, setSel('family', ''), { tab: 'instances' });
  console.log(`filter ${INSTANCES} rows: by status ${stat(filters)} ("solved by some, not all": ${shown}); by family ${ms(fam)} (${shownFam})`);
  const idle = (await page.evaluate(
    `new Promise((resolve) => { const t0 = performance.now(); let n = 0; const step = () => { if (++n < 40) requestAnimationFrame(step); else resolve((performance.now() - t0) / n); }; requestAnimationFrame(step); })`,
  )) as number;
  const scroll = async (px: number) =>
    (await page!.evaluate(
      `new Promise((resolve) => { const w = document.querySelector('.table-scroll'); w.scrollTop = 0; const t0 = performance.now(); let n = 0; const step = () => { w.scrollTop += ${px}; if (++n < 40) requestAnimationFrame(step); else resolve((performance.now() - t0) / n); }; requestAnimationFrame(step); })`,
    )) as number;
  const scrolls = [];
  for (const px of [48, 120, 600]) scrolls.push(`${px} px/frame ${ms(await scroll(px))}`);
  console.log(`scroll the table, mean frame over 40 frames (an idle frame is ${ms(idle)}): ${scrolls.join(', ')}`);
  problems.push(...(await problemsOf(page)));
  await page.close();
  return problems;
}

/** Every tab in each theme, at a typical editor size, plus a themed tooltip. */
async function screenshots(browser: Browser, build: DashboardBuild, five: number[]): Promise<string[]> {
  const data = build.data;
  const problems: string[] = [];
  fs.mkdirSync(ART, { recursive: true });
  const shots: string[] = [];
  for (const theme of Object.keys(THEMES)) {
    const p = await openPage(browser, theme, build, { ui: { tab: 'cycles', selected: five.slice(0, 3), chosen: true } }, { width: 1280, height: 860 });
    await timed(p, `window.postMessage(${JSON.stringify({ type: 'data', data })}, '*')`, { tab: 'cycles' });
    await p.waitForTimeout(300);
    for (const tab of ['cycles', 'verdicts', 'cactus', 'satunsat', 'instances', 'failures', 'cost', 'strategy']) {
      if (tab !== 'cycles')
        await timed(p, `document.querySelector('vscode-tab-header[data-tab=${tab}]').click()`, {
          tab,
          ...(tab === 'cactus' || tab === 'instances' ? { columns: true } : {}),
          ...(tab === 'verdicts' ? { pairs: true } : {}),
        });
      if (tab === 'instances') await p.evaluate(`document.querySelector('.table-scroll').focus()`).then(() => p.keyboard.press('ArrowDown'));
      await p.waitForTimeout(150);
      const file = path.join(ART, `dashboard-${tab}-${theme}.png`);
      await p.screenshot({ path: file });
      shots.push(path.relative(ROOT, file));
      if (tab === 'verdicts') {
        // The selected decision's evidence below the table: its pairs; then a challenger racing rejected early.
        const more = async (name: string) => {
          await p.evaluate(`document.querySelector('.decision-detail').scrollIntoView()`);
          await p.waitForTimeout(150);
          const f = path.join(ART, `dashboard-verdicts-${name}-${theme}.png`);
          await p.screenshot({ path: f });
          shots.push(path.relative(ROOT, f));
        };
        await timed(p, `document.querySelector('tr.decision .oc-promoted').closest('tr').querySelector('button').click()`, { tab: 'verdicts', pairs: true });
        await more('pairs');
        await timed(p, `document.querySelector('tr.decision .oc-rejected-early').closest('tr').querySelector('button').click()`, {
          tab: 'verdicts',
          pairs: true,
        });
        await more('rejected');
        await p.evaluate('window.scrollTo(0, 0)');
      }
    }
    // The Strategy tab as the islands strategy shows it (a synthetic database over the same candidates).
    const rnd = prng(7);
    const passing = data.candidates.filter((c) => c.perf).slice(-40);
    const islands = Array.from({ length: 5 }, (_, index) => {
      const cells = new Map<string, { x: number; y: number; candidate: number; par2: number }>();
      for (const c of passing.filter((_c, i) => i % 5 === index)) {
        const x = Math.floor(rnd() * 5);
        const y = Math.min(4, Math.floor(rnd() * 3) + 1);
        const cur = cells.get(`${x},${y}`);
        if (!cur || c.perf!.par2 < cur.par2) cells.set(`${x},${y}`, { x, y, candidate: c.id, par2: c.perf!.par2 });
      }
      const list = [...cells.values()];
      const best = list.reduce<(typeof list)[number] | null>((b, c) => (!b || c.par2 < b.par2 ? c : b), null);
      return { index, members: list.length + 2, cells: list, best: best && { candidate: best.candidate, par2: best.par2 } };
    });
    const withIslands = {
      ...data,
      strategy: 'islands',
      islands: {
        bins: 5,
        islands,
        archive: islands.flatMap((i) => (i.best ? [i.best] : [])).sort((a, b) => a.par2 - b.par2),
        penalties: [
          { kind: 'no patch', count: 3 },
          { kind: 'no change', count: 5 },
          { kind: 'build or crash', count: 9 },
          { kind: 'wrong answer or bad proof', count: 2 },
        ],
        migrations: 9,
      },
    };
    await p.evaluate(`window.postMessage(${JSON.stringify({ type: 'data', data: withIslands })}, '*')`);
    await p.waitForTimeout(300);
    await p.screenshot({ path: path.join(ART, `dashboard-strategy-islands-${theme}.png`) });
    shots.push(path.relative(ROOT, path.join(ART, `dashboard-strategy-islands-${theme}.png`)));
    // SMC with perf tiers and an objective portfolio below it.
    const ids = passing.map((c) => c.id);
    const withSmc = {
      ...data,
      strategy: 'smc',
      islands: null,
      smc: {
        run: 2,
        iteration: 3,
        lambda: 0.71,
        betaT: 28.4,
        particles: ids.slice(-4).map((candidate, i) => ({ candidate, reward: 0.55 + 0.1 * i })),
        kernels: [
          { name: 'diff', mean: 0.42, a: 4.1, b: 5.6 },
          { name: 'diff+inspiration', mean: 0.5, a: 3, b: 3 },
          { name: 'rewrite', mean: 0.2, a: 1.2, b: 4.8 },
          { name: 'rewrite+inspiration', mean: 0.33, a: 1.5, b: 3 },
        ],
        forecast: 9,
        accepted: 11,
        moves: 20,
        history: [
          { run: 2, iteration: 1, lambda: 0.33, ess: 3.6, best: 0.55 },
          { run: 2, iteration: 2, lambda: 0.52, ess: 3.6, best: 0.61 },
          { run: 2, iteration: 3, lambda: 0.71, ess: 3.7, best: 0.85 },
        ],
        ended: [{ run: 1, reason: 'the best reward has not improved for 3 iterations' }],
      },
      tiers: {
        tiers: [
          { tier: 1, fraction: 0.25, timeoutS: 60, promoteTop: 0.5, measured: 40, promoted: 20 },
          { tier: 2, fraction: 0.5, timeoutS: 150, promoteTop: 0.2, measured: 20, promoted: 4 },
          { tier: 3, fraction: 1, timeoutS: 300, promoteTop: null, measured: 4, promoted: 4 },
        ],
        recent: ids.slice(-6).map((candidate, i) => ({ candidate, tier: 1 + (i % 3), par2: 1500 + 40 * i, rank: 1 + i, of: 12, promoted: i % 2 === 0 })),
      },
      consensus: {
        round: 100,
        objectives: [
          { name: 'par2', author: 'person', rationale: 'PAR-2 over the whole set', weight: 0.31, tau: 0.82, createdRound: 0, multiplier: 1, error: null },
          { name: 'unsolved', author: 'person', rationale: 'reach', weight: 0.27, tau: 0.71, createdRound: 0, multiplier: 1, error: null },
          {
            name: 'hazard',
            author: 'model',
            rationale: 'runs finishing just under the timeout',
            weight: 0.42,
            tau: 0.64,
            createdRound: 90,
            multiplier: 1.5,
            error: null,
          },
          { name: 'mem_peak', author: 'model', rationale: 'memory', weight: 0, tau: -0.2, createdRound: 95, multiplier: 1, error: null },
        ],
        candidates: ids.slice(-5).map((candidate, i) => ({ candidate, score: 0.1 + 0.15 * i })),
      },
    };
    await p.evaluate(`window.postMessage(${JSON.stringify({ type: 'data', data: withSmc })}, '*')`);
    await p.waitForTimeout(300);
    await p.screenshot({ path: path.join(ART, `dashboard-strategy-smc-${theme}.png`), fullPage: true });
    shots.push(path.relative(ROOT, path.join(ART, `dashboard-strategy-smc-${theme}.png`)));
    await p.evaluate(`window.postMessage(${JSON.stringify({ type: 'data', data })}, '*')`);
    await p.waitForTimeout(200);
    // A hover tooltip on the cycles chart, to see it themed.
    await p.click('vscode-tab-header[data-tab=cycles]');
    await p.waitForTimeout(150);
    const box = await p.locator('.t-cycles canvas').boundingBox();
    if (box) {
      await p.mouse.move(box.x + box.width * 0.62, box.y + box.height * 0.5);
      await p.waitForTimeout(150);
      await p.screenshot({
        path: path.join(ART, `dashboard-tooltip-${theme}.png`),
        clip: { x: box.x, y: box.y - 10, width: box.width, height: box.height + 20 },
      });
    }
    if (theme === 'dark') {
      // VS Code switches themes under a live page: new variables, then a new body class.
      const light = Object.fromEntries(Object.entries({ ...THEMES.light!.vars, ...FONTS }).map(([k, v]) => [`--vscode-${k}`, v]));
      await timed(
        p,
        `{ const v = ${JSON.stringify(light)}; for (const [k, x] of Object.entries(v)) document.documentElement.style.setProperty(k, x); document.documentElement.style.background = v['--vscode-editor-background']; document.body.className = 'vscode-light'; }`,
        { tab: 'cycles' },
      );
      await p.screenshot({ path: path.join(ART, 'dashboard-switched-dark-to-light.png') });
    }
    problems.push(...(await problemsOf(p)).map((x) => `${theme}: ${x}`));
    await p.close();
  }
  console.log(`screenshots: ${shots.length} in .test-artifacts/ (dashboard-<tab>-<theme>.png)`);
  return problems;
}

async function main(): Promise<void> {
  const script = path.join(ROOT, 'dist', 'media', 'dashboard.js');
  if (!fs.existsSync(script)) throw new Error('dist/media/dashboard.js is missing: node esbuild.mjs');
  // BENCH_WORKSPACE=DIR keeps the synthetic workspace there (to open it in VS Code, or to profile).
  const keep = process.env.BENCH_WORKSPACE;
  const ws = keep ? path.resolve(keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-bench-dash-'));
  if (keep) fs.rmSync(path.join(ws, '.satlution'), { recursive: true, force: true });
  const problems: string[] = [];
  try {
    let t = Date.now();
    writeWorkspace(ws);
    console.log(`workspace: ${BASELINES.length} baselines + ${CYCLES} cycles x ${INSTANCES} instances written in ${Date.now() - t} ms`);
    const source = new DashboardSource(ws);
    t = performance.now();
    await source.build();
    const cold = performance.now() - t;
    t = performance.now();
    const build = await source.build();
    const warm = performance.now() - t;
    console.log(`build from disk: ${ms(cold)} cold, ${ms(warm)} with every evaluation cached`);
    const data = build.data;
    const dataBytes = Buffer.byteLength(JSON.stringify({ type: 'data', data }));
    const measured = data.candidates.filter((c) => c.seed === null && c.hasDetail && c.verdict === 'pass' && !c.partial);
    const five = [
      data.champion!,
      ...measured
        .filter((c) => c.id !== data.champion)
        .slice(-4)
        .map((c) => c.id),
    ];
    const detailBytes = Buffer.byteLength(
      JSON.stringify({ type: 'detail', version: data.version, columns: build.columns([...data.candidates.filter((c) => c.seed).map((c) => c.id), ...five]) }),
    );
    const naive = Buffer.byteLength(JSON.stringify(data.candidates.map((c) => build.evaluation(c.id)?.perfResults ?? [])));
    console.log(
      `payload: data ${kb(dataBytes)} (${data.candidates.length} candidates, ${data.cycles.length} cycles, ${data.instances.name.length} instances, ${data.verdicts.decisions.length} decisions in ${kb(Buffer.byteLength(JSON.stringify(data.verdicts)))}); columns of 3 baselines + 5 compared ${kb(detailBytes)}; every per-instance result as objects would be ${kb(naive)}`,
    );
    if (!(await buildDashboard(ws)).data.cycles.length) throw new Error('the synthetic workspace has no cycles');

    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
    try {
      // BENCH_SHOTS_ONLY=1 skips the timings (to iterate on the looks).
      if (!process.env.BENCH_SHOTS_ONLY) problems.push(...(await timings(browser, build, five, measured)));

      problems.push(...(await screenshots(browser, build, five)));
    } finally {
      await browser.close();
    }
  } finally {
    if (!keep) fs.rmSync(ws, { recursive: true, force: true });
  }
  if (problems.length) {
    console.error(`problems in the page:\n${[...new Set(problems)].join('\n')}`);
    process.exitCode = 1;
  } else console.log('no CSP violations, page errors or console errors');
}

void main().catch((e: Error) => {
  console.error(e.stack ?? e.message);
  process.exitCode = 1;
});
