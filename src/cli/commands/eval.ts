import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config/load';
import { ConfigSchema, StageName, type Config } from '../../core/config/schema';
import type { GateReport } from '../../core/eval/gates';
import { vacuousWarnings } from '../../core/eval/evalDoc';
import { type Evaluation, evaluateSolver, EvaluationSetupError } from '../../core/eval/service';
import type { InstanceResult } from '../../core/run/result';
import { findWorkspace } from '../../core/workspace/snapshot';
import { EXIT, UsageError } from '../exit';
import { runnerEnv } from '../runnerEnv';
import { red } from '../terminal';

export const EVAL_HELP = `satlution eval SOLVER_DIR [--bench DIR_OR_SET] [--stage smoke|verify|perf|all] [--timeout S]
               [--mem MB] [--jobs N] [--runner NAME] [--json FILE] [--no-build] [--no-proofs]
               [--drat-trim PATH] [--no-rules]

In a workspace, first checks SOLVER_DIR against .rules/ (the comply gate; --no-rules skips it). Then
builds SOLVER_DIR (bash starexec_build) and runs the gates: every SAT model is checked against the
formula, every UNSAT proof with drat-trim (where the stage checks proofs; perf keeps each UNSAT
answer's proof and checks a random sample of them afterwards: stages.perf.audit), every answer against
the known one (meta.csv) or one proved earlier by another solver. --no-proofs takes UNSAT answers on
trust. Without --bench, the stages and sets of
satlution.yaml are used (--stage all: smoke, verify, perf). With --bench, that one set is run with the
checks of --stage (default verify). Results are stored as each run ends: re-running resumes, and an
identical binary is never benchmarked twice (an UNSAT answer of perf only once its proof was checked).
--jobs N runs N instances at once on a local runner, each pinned to a core of its own where there are
enough (default: the runner's jobs in satlution.yaml, else the cores less one).
Each stage runs on its runner from satlution.yaml (stages.<s>.runner, default local); --runner NAME
runs every stage on that runner. An ssh runner uses the system ssh with your ~/.ssh/config
(SATLUTION_SSH_CONFIG=FILE passes -F FILE instead). A slurm runner submits array jobs (here, or on
its login_host over ssh); interrupting scancels them, while a crashed or killed run leaves them queued
and the next run re-attaches to them.
Exit: 0 pass, 1 a gate failed, 2 bad usage or input.`;

export async function evalCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      bench: { type: 'string' },
      stage: { type: 'string' },
      timeout: { type: 'string' },
      mem: { type: 'string' },
      jobs: { type: 'string' },
      runner: { type: 'string' },
      json: { type: 'string' },
      'no-build': { type: 'boolean', default: false },
      'no-proofs': { type: 'boolean', default: false },
      'no-rules': { type: 'boolean', default: false },
      'drat-trim': { type: 'string' },
    },
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError(`eval needs exactly one SOLVER_DIR\n\n${EVAL_HELP}`);
  const solverDir = path.resolve(positionals[0]!);
  if (
    !(await fs.stat(solverDir).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    throw new UsageError(`${positionals[0]} is not a directory`);
  const stageArg = values.stage ?? (values.bench ? 'verify' : 'all');
  if (stageArg !== 'all' && !StageName.safeParse(stageArg).success) throw new UsageError(`--stage must be smoke, verify, perf or all, got "${stageArg}"`);
  const num = (v: string | undefined, flag: string, int = false) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!(n > 0) || (int && !Number.isInteger(n))) throw new UsageError(`${flag} must be a positive ${int ? 'whole ' : ''}number, got "${v}"`);
    return n;
  };
  const timeout = num(values.timeout, '--timeout');
  const mem = num(values.mem, '--mem', true);
  const jobs = num(values.jobs, '--jobs', true);

  const ws = (await findWorkspace(solverDir)) ?? (await findWorkspace(process.cwd()));
  const config: Config = ws ? await loadConfig(ws) : ConfigSchema.parse({ seeds: [{ name: 'none', source: '.' }] });
  const abort = new AbortController();
  const onSignal = () => abort.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const progress = progressPrinter();
  let evaluation: Evaluation;
  try {
    evaluation = await evaluateSolver({
      ws,
      config,
      solverDir,
      overrides: {
        stage: stageArg as StageName | 'all',
        // A set name from satlution.yaml, or a directory relative to where the command runs.
        ...(values.bench ? { bench: values.bench in config.benchmarks ? values.bench : path.resolve(values.bench) } : {}),
        ...(timeout ? { timeoutS: timeout } : {}),
        ...(mem ? { memMb: mem } : {}),
        ...(jobs ? { jobs } : {}),
        noProofs: values['no-proofs'],
        ...(values.runner ? { runner: values.runner } : {}),
      },
      build: !values['no-build'],
      rules: !values['no-rules'],
      ...(values['drat-trim'] ? { dratTrim: values['drat-trim'] } : {}),
      runnerEnv: runnerEnv(),
      signal: abort.signal,
      onGateStart: progress.start,
      onResult: progress.result,
      onStatus: progress.status,
    });
  } catch (e) {
    progress.clear();
    if (e instanceof EvaluationSetupError)
      throw new UsageError(e.message.startsWith('proof checking needs drat-trim') ? `${e.message} (--no-proofs)` : e.message);
    if (abort.signal.aborted) {
      process.stderr.write(`satlution eval: interrupted; finished runs are stored and a re-run resumes from them\n`);
      return 130;
    }
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  progress.clear();
  for (const p of evaluation.recorded?.patches ?? [])
    process.stderr.write(`rule patch proposed: ${p.id} for ${p.rule_id} — ${p.rationale} (satlution rules pending --diff)\n`);
  if (values.json) await fs.writeFile(values.json, JSON.stringify(evaluation.doc, null, 2) + '\n');
  process.stdout.write(render(evaluation.gates, evaluation.verdict, vacuousWarnings(evaluation.doc)));
  return evaluation.verdict === 'pass' ? EXIT.ok : EXIT.gateFailed;
}

function render(gates: GateReport[], verdict: string, warnings: readonly string[]): string {
  const out: string[] = [];
  for (const g of gates) {
    out.push(`${g.ok ? '✓' : '✗'} ${g.gate.padEnd(7)} ${g.detail}${g.reused ? ` (${g.reused} result${g.reused > 1 ? 's' : ''} reused)` : ''}`);
    for (const f of g.ok ? [] : g.failures) out.push(`    ${f}`);
  }
  const m = [...gates].reverse().find((g) => g.metrics)?.metrics;
  if (m) {
    out.push(
      '',
      `  instances ${m.n}   solved ${m.solved} (SAT ${m.solved_sat}, UNSAT ${m.solved_unsat})   PAR-2 ${m.par2.toFixed(2)} s` +
        (m.par2_sat !== null ? `   SAT ${m.par2_sat.toFixed(2)}` : '') +
        (m.par2_unsat !== null ? `   UNSAT ${m.par2_unsat.toFixed(2)}` : ''),
    );
    out.push(
      `  solved within ${Object.entries(m.solved_within)
        .sort((x, y) => Number(x[0]) - Number(y[0]))
        .map(([t, n]) => `${t} s: ${n}`)
        .join(', ')}   memory avg ${m.mem_avg_mb ?? '-'} MB, max ${m.mem_max_mb ?? '-'} MB   wrong ${m.wrong}`,
    );
  }
  out.push('', `verdict: ${verdict}`);
  // A gate that passed with nothing checked (vacuous_gates: warn) is said with the verdict, in red.
  for (const w of warnings) out.push(red(`warning: ${w}`));
  return out.join('\n') + '\n';
}

/** A one-line progress display on a terminal; on a pipe, only failures are printed as they happen. */
function progressPrinter() {
  const tty = process.stderr.isTTY;
  const t0 = Date.now();
  let gate = '';
  const counts = new Map<string, number>();
  let line = false;
  const clear = () => {
    if (tty && line) process.stderr.write('\r\x1b[K');
    line = false;
  };
  return {
    clear,
    start: (g: string, total: number) => {
      clear();
      gate = g;
      counts.clear();
      if (g === 'build') process.stderr.write(tty ? '[build] bash starexec_build ...' : '[build] bash starexec_build\n');
      else if (g === 'comply') process.stderr.write(tty ? '[comply] checking .rules/ ...' : '[comply] checking .rules/\n');
      else if (!tty) process.stderr.write(`[${g}] ${total} instances\n`);
      line = tty;
    },
    status: (_g: string, message: string) => {
      if (tty) {
        clear();
        process.stderr.write(`[${gate}] ${message}`);
        line = true;
      } else if (!/: \d+\/\d+ done/.test(message)) process.stderr.write(`[${gate}] ${message}\n`); // progress ticks only on a terminal
    },
    result: (_g: string, r: InstanceResult, done: number, total: number, reused: boolean) => {
      counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
      if (reused) counts.set('reused', (counts.get('reused') ?? 0) + 1);
      if (tty) {
        const parts = [...counts].map(([k, v]) => `${k} ${v}`).join(' · ');
        process.stderr.write(`\r\x1b[K[${gate}] ${done}/${total} · ${parts} · ${((Date.now() - t0) / 1000).toFixed(0)} s`);
        line = true;
      } else if (r.status !== 'solved' && r.status !== 'timeout' && r.status !== 'unknown') process.stderr.write(`[${gate}] ${r.status}: ${r.detail}\n`);
    },
  };
}
