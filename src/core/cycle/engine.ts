// One evolution cycle, champion/challenger (paper Fig. 9): plan -> approve -> code -> evaluate (comply,
// build, smoke, verify, perf) -> analyze (RESULTS.md, paired test) -> decide. Every step is saved
// before the next starts, so a crash, a cancel or a reload resumes at the step it stopped in; a pause
// request ends the run cleanly at the next step boundary. Failed candidates are kept with their
// failure; they feed the next plan.
import { isolationFor } from '../isolation/settings';
import * as path from 'node:path';
import type { EvolutionAgent } from '../agents/agent';
import type { ToolHost } from '../agents/coderTools';
import { Sandbox } from '../agents/sandbox';
import type { Config } from '../config/schema';
import { buildSolver } from '../run/buildSolver';
import type { EvalDoc } from '../eval/evalDoc';
import { EvalStore } from '../eval/evalStore';
import { type EvaluationRequest, evaluateSolver } from '../eval/service';
import type { Approver, Logger, PlanAnswer } from '../ports';
import { loadRules } from '../rules/loadRules';
import type { RunnerEnv } from '../runners/select';
import { CandidateStore } from '../store/candidates';
import { tryHoldLock } from '../store/lock';
import { candidateDirName, RULES_DIR, STATE_DIR } from '../layout';
import { newCandidate } from '../workspace/newCandidate';
import { writeResults } from '../workspace/resultsFile';
import { readCandidateDoc, UnsafeCandidateFile, writeCandidateDoc } from '../workspace/candidateFs';
import { inspectCandidate, treeProblem } from '../workspace/candidateCheck';
import { type Judge } from '../strategy/judge';
import { strategyFor } from '../strategy/registry';
import type { Evaluated } from '../decide/promotionRule';
import { ensureCpuBudget } from './budget';
import type { AgentSink, CycleEvent } from './events';
import type { PauseRequest } from './pause';
import { ProgressTracker } from './progress';
import { readCycle, saveCycle, type CycleState } from '../store/cycleState';
import { duelComparison, promotionLevel, raceChallengers, raceDuel, type VerdictContext } from '../decide/againstChampion';
import { newSessionName, type DuelDoc } from '../decide/duels';
import { heldOutCheck } from '../decide/heldOutCheck';
import { auditBeforePromotion, restedOn } from '../decide/promotionAudit';
import { measuredInFull } from '../eval/evalDoc';
import type { AuditRandom } from '../eval/audit';
import { releaseProofs } from '../eval/proofChecks';
import { stageRunners } from '../runners/select';

export type { AgentEvent, AgentRole, AgentSink, CycleEvent } from './events';
export type { EvolutionAgent } from '../agents/agent';

export interface CycleRequest {
  ws: string;
  config: Config;
  agent: EvolutionAgent;
  approver: Approver;
  log: Logger;
  /** Parallel runs instead of the runners' configured `jobs` (tests, benchmarks). */
  jobs?: number;
  signal?: AbortSignal;
  /** Checked at every step boundary: when requested, the run returns with the state resumable. */
  pause?: PauseRequest;
  onEvent?: (e: CycleEvent) => void;
  /** Where dist/worker.js is, for stages on ssh or slurm runners. */
  runnerEnv?: RunnerEnv;
  /** Scores proposals for strategies that screen them (sift). */
  judge?: Judge;
  /** The perf audits' draw (default: crypto randomness, so no candidate can predict it); tests pass a seeded one. */
  auditRandom?: AuditRandom;
}

/**
 * Runs the cycle in progress (or a new one) to its end, or until a pause is requested: then it returns
 * the saved state, whose `step` (not `done`) is where the next run resumes.
 */
/** A cycle run by another live process (a `satlution cycle` in a terminal, another window). */
export class CycleBusyError extends Error {
  constructor(readonly pid: number) {
    super(
      `a cycle is already running in another process (pid ${pid}, e.g. \`satlution cycle\` in a terminal or another window); stop it or wait for it to finish`,
    );
  }
}

export async function runCycle(req: CycleRequest): Promise<CycleState> {
  // One cycle at a time per workspace, across processes: two runs would plan into the same candidate.
  const lock = await tryHoldLock(path.join(req.ws, STATE_DIR, 'cycle.lock'));
  if ('heldBy' in lock) throw new CycleBusyError(lock.heldBy);
  try {
    return await runCycleLocked(req);
  } finally {
    await lock.release();
  }
}

async function runCycleLocked(req: CycleRequest): Promise<CycleState> {
  const { ws } = req;
  const store = new CandidateStore(ws);
  let s = await readCycle(ws);
  // An ended cycle's proofs are gone once it ended here; one abandoned (or ended by another version) may have left them.
  if (s?.step === 'done' && s.race_session) await releaseCycleProofs(req, s.race_session);
  if (!s || s.step === 'done') {
    const { index } = await store.load();
    if (index.champion === null) throw new Error('there is no champion to evolve; initialize the workspace first');
    await ensureCpuBudget(ws, req.config.budgets.cpu_hours);
    const strategy = strategyFor(req.config);
    const now = new Date().toISOString();
    const cycle = (s?.cycle ?? 0) + 1;
    // The strategy picks where the cycle starts (islands: from its database); by default the champion.
    const pick = strategy.parent
      ? await strategy.parent({ ws, cycle, champion: index.champion, championJson: await readEval(req, index.champion) })
      : { parent: index.champion, island: null, how: '' };
    if (pick.how) req.onEvent?.({ type: 'log', message: `cycle ${cycle} starts from ${candidateDirName(pick.parent)}: ${pick.how}` });
    s = {
      cycle,
      step: 'plan',
      parent: pick.parent,
      candidate: null,
      title: null,
      started_at: now,
      updated_at: now,
      outcome: null,
      champion_changed: false,
      proposals: [],
      hint: pick.hint ?? null,
      island: pick.island,
      selected: null,
      race_session: null,
    };
    await saveCycle(ws, s);
  } else req.log.info(`Resuming cycle ${s.cycle} at step "${s.step}"`);
  const strategy = strategyFor(req.config);
  const dirOf = (id: number) => path.join(ws, candidateDirName(id));
  const candidateOf = (c: CycleState) => (c.candidate === null ? null : candidateDirName(c.candidate));
  const announce = () => req.onEvent?.({ type: 'step', cycle: s!.cycle, step: s!.step, candidate: candidateOf(s!), title: s!.title });
  const step = async (next: Partial<CycleState>) => {
    s = { ...s!, ...next };
    await saveCycle(ws, s);
    announce();
  };
  // A host's failing event handler must not break an agent in the middle of a stream.
  const emit: AgentSink = (e) => {
    try {
      req.onEvent?.(e);
    } catch (err) {
      req.log.debug(`an agent event handler failed: ${(err as Error).message}`);
    }
  };
  const paused = () => {
    req.log.info(`Cycle ${s!.cycle} paused before step "${s!.step}"`);
    req.onEvent?.({ type: 'paused', cycle: s!.cycle, step: s!.step, candidate: candidateOf(s!) });
    return s!;
  };
  const end = async (outcome: string, failed: boolean) => {
    if (failed && s!.candidate !== null) await store.setStatus(s!.candidate, 'failed', outcome);
    await step({ step: 'done', outcome });
    return s!;
  };

  const recordOutcome = async (o: Parameters<NonNullable<typeof strategy.record>>[0]) => {
    const line = await strategy.record?.(o);
    if (line) req.onEvent?.({ type: 'log', message: line });
  };
  /** A proposal ended (coded or not): plan the next one, or screen them all when there are enough. */
  const nextProposal = async (coded: boolean) => {
    const proposals = [...s!.proposals.filter((p) => p.candidate !== s!.candidate), { candidate: s!.candidate!, title: s!.title, coded }];
    await step(proposals.length < strategy.proposals ? { step: 'plan', candidate: null, title: null, proposals } : { step: 'screen', proposals });
  };

  announce();
  try {
    while (s.step !== 'done') {
      req.signal?.throwIfAborted();
      if (req.pause?.requested) return paused();
      switch (s.step) {
        case 'plan': {
          // The candidate exists before the plan, so a resumed cycle plans into the same one.
          if (s.candidate === null) await step({ candidate: (await newCandidate(ws, { parent: s.parent })).id });
          await store.setStatus(s.candidate!, 'planning');
          const p = await req.agent.plan({
            ws,
            cycle: s.cycle,
            proposal: s.proposals.length,
            ...(s.hint ? { hint: s.hint } : {}),
            championDir: dirOf(s.parent),
            candidate: candidateDirName(s.candidate!),
            emit,
          });
          await writeCandidateDoc(dirOf(s.candidate!), 'HYPOTHESIS.md', p.hypothesis);
          await step({ step: 'approve', title: p.title });
          break;
        }
        case 'approve': {
          let title = s.title;
          if (req.config.approval !== 'auto') {
            const candidate = candidateDirName(s.candidate!);
            const hypothesis = await hypothesisOf(dirOf(s.candidate!));
            let answer: PlanAnswer;
            try {
              answer = req.approver.plan
                ? await req.approver.plan({ cycle: s.cycle, candidate, title: s.title ?? '', hypothesis })
                : { approved: await req.approver.confirm(`Approve the plan for ${candidate}: ${s.title}?`, hypothesis, 'Approve Plan') };
            } catch (e) {
              // A host withdraws the question to pause: the cycle resumes by asking again.
              if (req.pause?.requested) return paused();
              throw e;
            }
            if (!answer.approved) {
              const reason = answer.reason?.trim();
              await store.setStatus(s.candidate!, 'discarded', reason ? `plan rejected: ${reason}` : 'plan rejected');
              if (strategy.proposals === 1) return end(`the plan was rejected${reason ? ` (${reason})` : ''}`, false);
              await nextProposal(false);
              break;
            }
            // The person may have edited the plan before approving: its heading is the title now.
            title = hypothesisTitle(await hypothesisOf(dirOf(s.candidate!)), candidate) ?? s.title;
          }
          await step({ step: 'code', title });
          break;
        }
        case 'code': {
          await store.setStatus(s.candidate!, 'coding');
          const dir = dirOf(s.candidate!);
          const host = await toolHost(req, dir);
          // What the coder left (or a build it ran) is checked before anything else reads the candidate.
          const coded = await codeCandidate(req, { ws, cycle: s.cycle, candidateDir: dir, host, emit });
          if (!coded.finished) {
            await recordOutcome({ ws, cycle: s.cycle, island: s.island, candidate: s.candidate!, penalty: 'no patch', detail: coded.detail });
            if (coded.refused) await writeRefusal(dir, s.cycle, coded.refused);
            const why = coded.refused ? coded.refused.detail : `coding did not finish: ${coded.detail}`;
            if (strategy.proposals === 1) return end(why, true);
            await store.setStatus(s.candidate!, 'failed', why);
            await nextProposal(false);
            break;
          }
          // A strategy without a screen sends its one proposal straight on; the others collect and screen first.
          if (!strategy.screens)
            await step({ step: 'evaluate', proposals: [{ candidate: s.candidate!, title: s.title, coded: true }], selected: [s.candidate!] });
          else await nextProposal(true);
          break;
        }
        case 'screen': {
          const coded = s.proposals.filter((p) => p.coded);
          if (!coded.length) return end(`none of the ${s.proposals.length} proposals was coded`, false);
          const sel = await strategy.select(s.proposals, {
            ws,
            cycle: s.cycle,
            parent: s.parent,
            island: s.island,
            buildTimeoutS: req.config.evaluation.build_timeout_s,
            buildIsolation: isolationFor(req.config),
            ...(req.judge ? { judge: req.judge } : {}),
            rules: () => rulesForJudge(ws),
            hypothesis: (id) => hypothesisOf(dirOf(id)).catch(() => ''),
            ...(req.signal ? { signal: req.signal } : {}),
            say: (message) => req.onEvent?.({ type: 'log', message }),
          });
          for (const d of sel.discarded) await store.setStatus(d.candidate, 'discarded', d.reason);
          const first = sel.evaluate[0];
          if (first === undefined)
            return end(sel.discarded.map((d) => `${candidateDirName(d.candidate)} ${d.reason}`).join('; ') || 'no proposal was selected for evaluation', false);
          await step({ step: 'evaluate', selected: sel.evaluate, candidate: first, title: s.proposals.find((p) => p.candidate === first)?.title ?? s.title });
          break;
        }
        case 'evaluate': {
          const selected = s.selected ?? [s.candidate!];
          // manual: a person looks at the code before it is built and run, and confirms each promotion.
          if (
            req.config.approval === 'manual' &&
            !(await req.approver.confirm(
              `Evaluate ${selected.map(candidateDirName).join(', ')}? Review ${selected.length > 1 ? 'their diffs' : 'its diff'} with the parent first.`,
              s.title ?? undefined,
              'Evaluate',
            ))
          ) {
            for (const id of selected) await store.setStatus(id, 'discarded', 'evaluation declined by a person');
            return end('the evaluation was declined', false);
          }
          // The champion (what candidates are compared with) and the parent are measured under the same
          // limits first, when they have not been yet.
          const champion = (await store.load()).index.champion ?? s.parent;
          for (const ref of new Set([champion, s.parent])) if (!(await readEval(req, ref))) await evaluateCandidate(req, dirOf(ref), { reference: true });
          await recordOutcome({ ws, cycle: s.cycle, island: s.island, candidate: s.parent, json: (await readEval(req, s.parent))! });
          const failures: string[] = [];
          const docs = new Map<number, EvalDoc>();
          for (const id of selected) {
            // A resumed cycle skips what is already evaluated (and the results store makes re-runs cheap).
            let json = await readEval(req, id);
            if (!json) {
              if (s.candidate !== id) await step({ candidate: id, title: s.proposals.find((p) => p.candidate === id)?.title ?? s.title });
              await store.setStatus(id, 'evaluating');
              json = await evaluateCandidate(req, dirOf(id), { raceLater: true });
            }
            docs.set(id, json);
          }
          // The challengers whose gates passed run the perf set in one race with the champion; one measured
          // in full outside a race (`satlution eval`) races too: only the race's pairs decide.
          const pending = selected.filter((id) => {
            const d = docs.get(id)!;
            return d.verdict === 'pass' && (d.race_pending || (measuredInFull(d) && !d.race?.session));
          });
          if (pending.length) {
            const session: string = s.race_session ?? newSessionName();
            // Kept before the first run, so a resumed race reuses its stored runs (not a step: nothing to announce).
            if (s.race_session !== session) await saveCycle(ws, (s = { ...s, race_session: session }));
            await raceChallengers(verdictContext(req), {
              cycle: s.cycle,
              session,
              championDir: dirOf(champion),
              champion: await readEval(req, champion),
              challengers: pending.map((id) => ({ id, dir: dirOf(id), doc: docs.get(id)! })),
            });
          }
          for (const id of selected) {
            const json = (await readEval(req, id)) ?? docs.get(id)!;
            await recordOutcome({ ws, cycle: s.cycle, island: s.island, candidate: id, json });
            if (json.verdict === 'fail') {
              await writeResults(dirOf(id), s.cycle, json);
              failures.push(`${selected.length > 1 ? `${candidateDirName(id)} ` : ''}failed the ${json.gates.find((g) => !g.ok)?.gate} gate`);
            }
          }
          if (failures.length === selected.length) return end(failures.join('; '), false); // recordEvaluation set the statuses
          await step({ step: 'analyze' });
          break;
        }
        case 'analyze': {
          // Every challenger measured in full meets the champion side by side (a duel); that comparison is the only one a decision uses.
          const { evaluated } = await evaluatedAgainstChampion(req, s);
          for (const e of evaluated) {
            if (e.json?.verdict !== 'pass') continue;
            const entrants = e.json.race?.entrants ?? 1;
            await writeResults(dirOf(e.candidate), s.cycle, e.json, e.cmp, {
              bandPct: 0,
              alpha: 2 * promotionLevel(req.config.strategy.alpha, entrants),
              marginPct: req.config.strategy.min_improvement_pct,
              falsePromotionPct: 100 * promotionLevel(req.config.strategy.alpha, 1),
              entrants,
              ...(e.duel ? { duel: e.duel } : {}),
            });
            if (e.cmp) await strategy.measured?.({ ws, cycle: s.cycle, candidate: e.candidate, cmp: e.cmp });
          }
          await step({ step: 'decide' });
          break;
        }
        case 'decide': {
          const { reference, evaluated } = await evaluatedAgainstChampion(req, s);
          const d = strategy.accept(evaluated, reference);
          if (d.winner === null) {
            await step({ step: 'done', outcome: d.outcome });
            break;
          }
          const won = evaluated.find((e) => e.candidate === d.winner)!;
          const cmp = won.cmp!;
          // A promotion rests only on checked answers (decide/promotionAudit.ts): the UNSAT answers are
          // proof-checked, largest saving first, until the same accept still picks the winner with the
          // rest at the champion's time; a lie caught has failed the winner.
          const level = 2 * promotionLevel(req.config.strategy.alpha, won.json?.race?.entrants ?? 1);
          const lie = await auditBeforePromotion(verdictContext(req), {
            cycle: s.cycle,
            champion: reference,
            challenger: d.winner,
            duel: won.duel!,
            passes: (duel) =>
              strategy.accept([{ ...won, cmp: duelComparison(duel, level, req.config.evaluation.rank_by, req.config.evaluation.families) }], reference)
                .winner === d.winner,
            ...jobsOverride(req),
          });
          if (lie) {
            // Strategies with a database hear it again, now failed (islands keeps the last word per candidate).
            await recordOutcome({ ws, cycle: s.cycle, island: s.island, candidate: d.winner, json: await readEval(req, d.winner) });
            await step({
              step: 'done',
              outcome: `${candidateDirName(reference)} stays champion (${candidateDirName(d.winner)} won on the perf set, but ${lie})`,
            });
            break;
          }
          const objection = await heldOutCheck(verdictContext(req), {
            cycle: s.cycle,
            winner: d.winner,
            champion: reference,
            hold: s.race_session ?? null,
            ...jobsOverride(req),
          });
          if (objection) {
            if (objection.failed) await recordOutcome({ ws, cycle: s.cycle, island: s.island, candidate: d.winner, json: await readEval(req, d.winner) });
            await step({
              step: 'done',
              outcome: `${candidateDirName(reference)} stays champion (${candidateDirName(d.winner)} won on the perf set, but ${objection.why})`,
            });
            break;
          }
          if (
            req.config.approval === 'manual' &&
            !(await req.approver.confirm(
              `Make ${candidateDirName(d.winner)} the champion? PAR-2 ${cmp.par2A.toFixed(2)} -> ${cmp.par2B.toFixed(2)} s (see RESULTS.md).`,
              undefined,
              'Promote',
            ))
          ) {
            await step({
              step: 'done',
              outcome: `${candidateDirName(reference)} stays champion (the promotion of ${candidateDirName(d.winner)} was declined)`,
            });
            break;
          }
          await store.setChampion(d.winner);
          const proofs = await restedOn(ws, d.winner);
          await step({ step: 'done', candidate: d.winner, champion_changed: true, outcome: proofs ? `${d.outcome}; ${proofs}` : d.outcome });
          break;
        }
      }
    }
    return s;
  } finally {
    // Ended (however: decided, failed, declined, refused): nothing checks the proofs the cycle's runs kept any more.
    // A paused or crashed cycle keeps them for its resumption.
    if (s.step === 'done' && s.race_session) await releaseCycleProofs(req, s.race_session);
  }
}

/** Releases the proofs a cycle's race and held-out check kept (the hold is the race's session), wherever the perf stage runs; a failure is only logged. */
async function releaseCycleProofs(req: CycleRequest, hold: string): Promise<void> {
  const runner = req.config.stages.perf.runner;
  try {
    const runners = stageRunners(req.config, [runner], req.runnerEnv ?? { workerFile: '' });
    const errors = await releaseProofs({ runners }, hold, [runner]);
    for (const e of errors) req.log.warn(`could not remove the proofs kept for cycle session ${hold} on ${e}`);
  } catch (e) {
    req.log.warn(`could not remove the proofs kept for cycle session ${hold}: ${(e as Error).message}`);
  }
}

/** A candidate's HYPOTHESIS.md as the harness wrote it (a regular file, never a link), '' when absent. */
async function hypothesisOf(dir: string): Promise<string> {
  return (await readCandidateDoc(dir, 'HYPOTHESIS.md')) ?? '';
}

/** Why the harness refused a candidate outside its gates (what its coding step left), for RESULTS.md and the store. */
interface Refusal {
  gate: string;
  detail: string;
  failures: string[];
}

/**
 * The code step: the agent codes the plan, then the candidate's tree is checked (links out, special
 * files, the disk limit). A plan the harness cannot read back, or a tree it refuses, ends the proposal
 * as `refused`, with the reason.
 */
async function codeCandidate(
  req: CycleRequest,
  o: { ws: string; cycle: number; candidateDir: string; host: ToolHost; emit: AgentSink },
): Promise<{ finished: boolean; detail: string; refused?: Refusal }> {
  let hypothesis: string;
  try {
    hypothesis = await hypothesisOf(o.candidateDir);
  } catch (e) {
    if (!(e instanceof UnsafeCandidateFile)) throw e;
    const detail = `its HYPOTHESIS.md cannot be read back: ${e.message}`;
    return { finished: false, detail, refused: { gate: 'files', detail, failures: [e.message] } };
  }
  const out = await req.agent.code({ ws: o.ws, cycle: o.cycle, candidateDir: o.candidateDir, hypothesis, host: o.host, emit: o.emit });
  const tree = await inspectCandidate(o.candidateDir, { maxBytes: req.config.evaluation.disk_max_mb * 2 ** 20 });
  const problem = treeProblem('the coding step', tree);
  if (problem) return { finished: false, detail: problem, refused: { gate: 'files', detail: problem, failures: tree.problems } };
  return out;
}

/** RESULTS.md for a candidate the harness refused before any gate ran. */
async function writeRefusal(dir: string, cycle: number, r: Refusal): Promise<void> {
  await writeResults(dir, cycle, { verdict: 'fail', gates: [{ gate: r.gate, ok: false, detail: r.detail, failures: r.failures }], metrics: null });
}

/** The title in a HYPOTHESIS.md heading (`# SATLUTION_3: title` or `# title`), if it has one. */
export function hypothesisTitle(text: string, candidate: string): string | undefined {
  const h = /^#[ \t]+(.+?)[ \t]*$/m.exec(text)?.[1];
  if (!h) return undefined;
  const t = h.startsWith(`${candidate}:`) ? h.slice(candidate.length + 1).trim() : h;
  return t || undefined;
}

async function toolHost(req: CycleRequest, dir: string): Promise<ToolHost> {
  const rules = await loadRules(path.join(req.ws, RULES_DIR)).catch(() => []);
  const protectedGlobs = ['HYPOTHESIS.md', 'RESULTS.md', ...rules.flatMap((r) => r.checks.flatMap((c) => (c.kind === 'protected_path' ? c.paths : [])))];
  return {
    sandbox: new Sandbox(dir, protectedGlobs),
    async build() {
      const b = await buildSolver(dir, req.config.evaluation.build_timeout_s, req.signal, isolationFor(req.config));
      return b.ok
        ? { ok: true, text: 'build ok' }
        : {
            ok: false,
            text: [
              b.detail,
              ...b.diagnostics
                .filter((d) => d.severity === 'error')
                .slice(0, 30)
                .map((d) => `${d.file ?? ''}:${d.line ?? ''}: ${d.message}`),
            ].join('\n'),
          };
    },
    async smoke() {
      // The coder's own check: build and the smoke set, nothing recorded.
      const r = await evaluateSolver({
        ...evaluationBase(req),
        solverDir: dir,
        overrides: { stage: 'smoke', ...jobsOverride(req) },
        rules: false,
        record: false,
      });
      const bad = r.gates.find((g) => !g.ok);
      return bad
        ? { ok: false, text: [`${bad.gate}: ${bad.detail}`, ...bad.failures].join('\n') }
        : { ok: true, text: r.gates.map((g) => `${g.gate}: ${g.detail}`).join('\n') };
    },
  };
}

/** `CycleRequest.jobs`, when set, as an override of the runners' configured `jobs`. */
const jobsOverride = (req: CycleRequest) => (req.jobs !== undefined ? { jobs: req.jobs } : {});

/** The parts of every evaluation request a cycle makes: its config, runners, cancel and log. */
function evaluationBase(req: CycleRequest): Pick<EvaluationRequest, 'ws' | 'config' | 'runnerEnv' | 'signal' | 'onStatus' | 'onLog' | 'auditRandom'> {
  return {
    ws: req.ws,
    config: req.config,
    runnerEnv: req.runnerEnv ?? { workerFile: '' },
    ...(req.signal ? { signal: req.signal } : {}),
    ...(req.auditRandom ? { auditRandom: req.auditRandom } : {}),
    // Per-second progress ticks would flood the transcript; what changes the picture is logged.
    onStatus: (gate, message) => {
      if (!/: \d+\/\d+ done/.test(message)) req.onEvent?.({ type: 'log', message: `[${gate}] ${message}` });
    },
    onLog: (message) => req.onEvent?.({ type: 'log', message }),
  };
}

/**
 * The gates on one candidate, recorded. With perf tiers (multi-fidelity), perf runs tier by tier and
 * stops where the candidate does not rank high enough; `reference` candidates (the champion, a parent)
 * always go the whole way, since everything else is compared with them.
 */
async function evaluateCandidate(req: CycleRequest, dir: string, o: { reference?: boolean; raceLater?: boolean } = {}): Promise<EvalDoc> {
  const progress = new ProgressTracker((e) => req.onEvent?.(e), path.basename(dir));
  const r = await evaluateSolver({
    ...evaluationBase(req),
    solverDir: dir,
    overrides: { stage: 'all', ...jobsOverride(req) },
    tiers: { reference: !!o.reference },
    ...(o.raceLater ? { raceLater: true } : {}),
    // The rules check and the build run no instance: named for what they do, with no count.
    onGateStart: (gate, total) => progress.start(gate === 'comply' ? 'checking the rules' : gate === 'build' ? 'building' : gate, total),
    onResult: (_g, run, done, total) => progress.report(done, total, run.status === 'solved' ? run.instance : `${run.instance} (${run.status})`),
  });
  return r.doc;
}

/** The cycle request as the verdict helpers (decide/againstChampion.ts) need it. */
function verdictContext(req: CycleRequest): VerdictContext {
  let quarter = 0;
  let lastDone = 0;
  const tracker = new ProgressTracker((e) => req.onEvent?.(e), null);
  return {
    ws: req.ws,
    config: req.config,
    runnerEnv: req.runnerEnv ?? { workerFile: '' },
    ...(req.signal ? { signal: req.signal } : {}),
    ...(req.auditRandom ? { auditRandom: req.auditRandom } : {}),
    log: (message) => req.onEvent?.({ type: 'log', message }),
    // A side-by-side measurement is as long as an evaluation: a line at each quarter of it.
    progress: (done, total) => {
      tracker.reportIn('side by side', done, total, null);
      // A count that went back is the next measurement; further runs leave it at the total (one line, not one each).
      if (done < lastDone) quarter = 0;
      lastDone = done;
      const q = total > 0 ? Math.floor((4 * done) / total) : 0;
      if (q > quarter) req.onEvent?.({ type: 'log', message: `side by side: ${done}/${total} runs` });
      quarter = Math.max(quarter, q);
    },
  };
}

/**
 * Each selected candidate's evaluation and, for one that passed and ran the whole set in the cycle's
 * race, its pairs with the champion there (the decision duel), compared at the level its race shared
 * among its challengers (promotionLevel): earlier champion results are never paired with a challenger's.
 */
async function evaluatedAgainstChampion(req: CycleRequest, s: CycleState): Promise<{ reference: number; evaluated: (Evaluated & { duel?: DuelDoc })[] }> {
  const reference = (await new CandidateStore(req.ws).load()).index.champion ?? s.parent;
  const dir = (id: number) => path.join(req.ws, candidateDirName(id));
  const out: (Evaluated & { duel?: DuelDoc })[] = [];
  for (const id of s.selected ?? (s.candidate === null ? [] : [s.candidate])) {
    const json = await readEval(req, id);
    const duel =
      id !== reference && json?.verdict === 'pass' && measuredInFull(json)
        ? await raceDuel(req.ws, { cycle: s.cycle, championDir: dir(reference), challengerDir: dir(id) })
        : undefined;
    if (!duel) {
      out.push({ candidate: id, json, cmp: undefined });
      continue;
    }
    // The level the race shared among its challengers; the promotion audit asks the same test again (decide step).
    const cmp = duelComparison(
      duel,
      2 * promotionLevel(req.config.strategy.alpha, json?.race?.entrants ?? 1),
      req.config.evaluation.rank_by,
      req.config.evaluation.families,
    );
    out.push({ candidate: id, json, cmp, duel, ...(duel.fatal ? { fatal: `${duel.fatal.side === 'B' ? 'it' : 'the champion'} ${duel.fatal.detail}` } : {}) });
  }
  return { reference, evaluated: out };
}

/** The rules a judge weighs a proposal against: those that apply when planning and coding. */
async function rulesForJudge(ws: string): Promise<string> {
  const rules = await loadRules(path.join(ws, RULES_DIR)).catch(() => []);
  return rules
    .filter((r) => r.phases.some((p) => p === 'planning' || p === 'coding'))
    .map((r) => `## ${r.id}: ${r.title}\n${r.body}`)
    .join('\n\n');
}

/** A candidate's evaluation document; a damaged one is reported and counts as not evaluated (it is measured again). */
function readEval(req: CycleRequest, id: number): Promise<EvalDoc | undefined> {
  return new EvalStore(req.ws).get(id, (m) => req.log.warn(m));
}
