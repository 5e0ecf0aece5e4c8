// The attacks a model made on the harness through the agents' tools, each replayed through a real
// cycle: a scripted model spoken to by the real `openai` client (test/fixtures/llmServer.ts) drives
// the planner and the coder, and the candidate's own build (sandboxed, as in every cycle) leaves
// FIFOs and links behind. The tools must answer each attack with an error the model can act on and
// the cycle must go on; nothing the model is sent may hold an expected answer; and a `satlution
// cycle` process must stop within seconds on SIGTERM, whatever step it is in, and resume afterwards.
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../../src/core/config/load';
import { runCycle } from '../../src/core/cycle/engine';
import { cycleSession } from '../../src/core/cycle/session';
import { silentLogger } from '../../src/core/ports';
import { buildSolver } from '../../src/core/run/buildSolver';
import { CandidateStore } from '../../src/core/store/candidates';
import { readCycle, type CycleState } from '../../src/core/store/cycleState';
import { newCandidate } from '../../src/core/workspace/newCandidate';
import { sampleEvalDoc } from '../fixtures/evalDocs';
import { LlmTestServer, type Reply } from '../fixtures/llmServer';
import { tinysatCycleWorkspace } from './cycleWorkspace';
import { CLI, tempDir, write } from './helpers';

/** A plan the planner's checks accept. */
const PLAN = {
  title: 'Tidy the build',
  change: 'Edit starexec_build so the build leaves its helper files where the next step expects them.',
  rationale: 'The build is the only step the coder controls here; the solver itself stays as it is.',
  expected_effect: { sat: 'unchanged', unsat: 'unchanged', par2: 'unchanged' },
  risks: 'None for soundness: no solver code changes.',
  tasks: ['Edit starexec_build.', 'Build and finish.'],
};

let calls = 0;
/** One tool call of the scripted model, with an id of its own (`call_<name>_<n>`) to find its result by. */
const tc = (name: string, args: unknown): Reply & { id: string } => ({
  kind: 'tool',
  name,
  args: typeof args === 'string' ? args : JSON.stringify(args),
  id: `call_${name}_${++calls}`,
});
/** A turn without tools; two in a row end the coder ("no_progress"), quickly. */
const idle: Reply = { kind: 'text', text: 'Nothing more to do.' };

/** The tool results sent back to the model, by call id. */
function toolResults(server: LlmTestServer): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of server.requests)
    for (const m of (r.body.messages ?? []) as { role?: string; tool_call_id?: string; content?: unknown }[])
      if (m.role === 'tool' && m.tool_call_id) out.set(m.tool_call_id, String(m.content));
  return out;
}

/** The result of one call, failing the test when the model was never sent one. */
function resultOf(server: LlmTestServer, call: { id: string }): string {
  const r = toolResults(server).get(call.id);
  assert.ok(r !== undefined, `no result was sent for ${call.id}`);
  return r;
}

/** A tinysat workspace whose planner and coder are the scripted models of `server`. */
async function llmWorkspace(server: LlmTestServer, approval: 'auto' | 'manual' = 'auto'): Promise<string> {
  const ws = await tinysatCycleWorkspace({ approval, perf: 2, perfSeed: 50 });
  const cfg = path.join(ws, 'satlution.yaml');
  const models = `models:\n  planner: { provider: openai, model: scripted-planner, base_url: ${server.url}/v1 }\n  coder: { provider: openai, model: scripted-coder, base_url: ${server.url}/v1 }\n`;
  const text = fs.readFileSync(cfg, 'utf8');
  assert.ok(text.includes('models: {}\n'));
  fs.writeFileSync(cfg, text.replace('models: {}\n', models));
  return ws;
}

/** The champion's starexec_build with `extra` lines run at its end (inside the candidate, in the build's sandbox). */
const buildWith = (ws: string, extra: string) => `${fs.readFileSync(path.join(ws, 'SATLUTION_0', 'starexec_build'), 'utf8').trimEnd()}\n${extra}\n`;

/** One cycle in this process with the LLM agent; `confirm` answers the approval questions. */
async function llmCycle(ws: string, confirm: (question: string) => boolean = () => true): Promise<CycleState> {
  const config = await loadConfig(ws);
  const session = cycleSession({ ws, config, agent: 'llm', host: { apiKey: () => 'sk-test', runnerEnv: { workerFile: '' } } });
  const { agentName: _name, ...parts } = session;
  return runCycle({ ws, config, ...parts, approver: { confirm: async (q) => confirm(q) }, log: silentLogger, jobs: 2 });
}

/** The size of the request body the model server got after `call` was answered (the next request that carries its result). */
function bodyAfter(server: LlmTestServer, call: { id: string }): number {
  const r = server.requests.find((q) => JSON.stringify(q.body.messages ?? []).includes(`"tool_call_id":"${call.id}"`));
  assert.ok(r, `no request carried the result of ${call.id}`);
  return JSON.stringify(r.body).length;
}

describe('agent attacks: the tools answer with errors, the cycle goes on', function () {
  this.timeout(240000);
  let server: LlmTestServer;

  beforeEach(async () => {
    server = new LlmTestServer();
    await server.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('(a) a FIFO the build made: reading it is a tool error, listing and searching name it, the cycle ends', async () => {
    const ws = await llmWorkspace(server);
    const read = tc('read_file', { path: 'pipe' });
    const search = tc('search', { pattern: 'main', path: '.' });
    const list = tc('list_files', { path: '.', depth: 1 });
    const edit = tc('edit_file', { path: 'pipe', search: 'x', replace: 'y' });
    const build = tc('build', {});
    server.queue(
      tc('submit_plan', PLAN),
      tc('write_file', { path: 'starexec_build', content: buildWith(ws, 'rm -f pipe && mkfifo pipe') }),
      build,
      read,
      search,
      list,
      edit,
      idle,
      idle,
    );
    const s = await llmCycle(ws);
    assert.equal(s.step, 'done', s.outcome ?? '');
    // The build ran (the harness may fail it for what it left) and left the FIFO.
    resultOf(server, build);
    assert.ok(fs.lstatSync(path.join(ws, candidateDir(s), 'pipe')).isFIFO(), 'the build made no FIFO');
    assert.match(resultOf(server, read), /^ERROR: pipe is a FIFO \(named pipe\), not a regular file; the tools read and write regular files/);
    assert.match(resultOf(server, search), /^tinysat\.c:\d+: int main/m);
    assert.match(resultOf(server, list), /^pipe \[a FIFO \(named pipe\): not a regular file, no tool reads it\]$/m);
    assert.match(resultOf(server, edit), /^ERROR: pipe is a FIFO \(named pipe\), not a regular file/);
  });

  it('(b) search with a catastrophic pattern answers at once (RE2), and says what RE2 does not have', async () => {
    const ws = await llmWorkspace(server);
    const search = tc('search', { pattern: '(a+)+$', path: 'a.txt' });
    const backref = tc('search', { pattern: '(a)\\1', path: '.' });
    const lookahead = tc('search', { pattern: 'a(?=b)', path: '.' });
    const content = `${`${'a'.repeat(50_000)}!\n`.repeat(10)}aaaa\n`;
    server.queue(tc('submit_plan', PLAN), tc('write_file', { path: 'a.txt', content }), search, backref, lookahead, idle, idle);
    const t0 = Date.now();
    const s = await llmCycle(ws);
    const took = (Date.now() - t0) / 1000;
    assert.equal(s.step, 'done', s.outcome ?? '');
    // A backtracking engine takes longer than the universe on this; RE2 a fraction of a second.
    assert.equal(resultOf(server, search), 'a.txt:11: aaaa');
    assert.ok(took < 90, `the cycle took ${took} s`);
    assert.match(resultOf(server, backref), /^ERROR: invalid regular expression \(RE2 syntax: no backreferences/);
    assert.match(resultOf(server, lookahead), /^ERROR: invalid regular expression \(RE2 syntax: .*lookahead/);
  });

  it('(c) a 5 MB write, an edit past 1 MiB and an oversized plan are refused, and not sent back with every request', async () => {
    const ws = await llmWorkspace(server);
    const hugePlan = tc('submit_plan', { ...PLAN, change: 'x'.repeat(1_000_000) });
    const longPlan = tc('submit_plan', { ...PLAN, change: 'y'.repeat(5000), tasks: Array(12).fill('z'.repeat(1000)) });
    const huge = tc('write_file', { path: 'huge.c', content: 'h'.repeat(5 << 20) });
    const over = tc('write_file', { path: 'over.c', content: 'o'.repeat((1 << 20) + 10) });
    const grow0 = tc('write_file', { path: 'grow.c', content: `BEGIN\n${'v'.repeat(1_000_000)}\n` });
    const grow = tc('edit_file', { path: 'grow.c', search: 'BEGIN', replace: 'u'.repeat(100_000) });
    server.queue(hugePlan, longPlan, tc('submit_plan', PLAN), huge, over, grow0, grow, idle, idle);
    const s = await llmCycle(ws);
    assert.equal(s.step, 'done', s.outcome ?? '');
    assert.match(resultOf(server, hugePlan), /^ERROR: the plan is \d+ characters; a plan is at most some 17,000/);
    assert.match(resultOf(server, longPlan), /^ERROR: the plan is too long: change: .*3000.*tasks\.0: .*400/);
    assert.match(
      resultOf(server, huge),
      /^ERROR: the arguments of write_file are \d+ characters, more than the \d+ it takes \(a file holds at most 1048576 bytes\)$/,
    );
    assert.match(resultOf(server, over), /^ERROR: invalid arguments for write_file: content: .*1048576/);
    assert.match(resultOf(server, grow0), /^wrote grow\.c/);
    assert.match(resultOf(server, grow), /^ERROR: edit_file: grow\.c would grow to \d+ bytes, more than the 1048576 a file may hold/);
    // The oversized calls were not kept in the conversation: the next requests are small.
    for (const call of [hugePlan, huge]) assert.ok(bodyAfter(server, call) < 200_000, `the request after ${call.id} has ${bodyAfter(server, call)} characters`);
    const dir = path.join(ws, candidateDir(s));
    for (const f of ['huge.c', 'over.c']) assert.equal(fs.existsSync(path.join(dir, f)), false, `${f} was written`);
    assert.equal(fs.statSync(path.join(dir, 'grow.c')).size, 1_000_007);
    const hypothesis = fs.readFileSync(path.join(dir, 'HYPOTHESIS.md'), 'utf8');
    assert.ok(hypothesis.length < 20_000 && !hypothesis.includes('xxxxxxxxxx'), `HYPOTHESIS.md has ${hypothesis.length} characters`);
  });

  it('(d) neither planner nor coder reads an expected answer: not by path, not through a link the build made, not in any request', async () => {
    const ws = await llmWorkspace(server);
    // The answers: the perf set's, the verify set's, a stored evaluation's, another workspace's.
    const PERF = 'answers-canary-perf';
    const EVAL = 'answers-canary-eval';
    const OTHER = 'answers-canary-other-ws';
    const VERIFY_ROW = 'unsat-small.cnf,tiny,UNSAT';
    write(path.join(ws, 'benchmarks', 'perf', 'meta.csv'), `instance,family,expected\np0.cnf,${PERF},SAT\np1.cnf,${PERF},SAT\n`);
    const other = tempDir('satlution-other-ws-');
    write(path.join(other, 'benchmarks', 'perf', 'meta.csv'), `instance,family,expected\nx.cnf,${OTHER},UNSAT\n`);
    const base = sampleEvalDoc();
    write(
      path.join(ws, '.satlution', 'evals', 'SATLUTION_1.json'),
      JSON.stringify(sampleEvalDoc({ solver: path.join(ws, 'SATLUTION_1'), instances: [{ ...base.instances[0]!, instance: `${EVAL}.cnf` }] })),
    );
    // A failed candidate whose (sandboxed) build linked the answers into its directory.
    const failed = await newCandidate(ws, { parent: 0 });
    const failedDir = path.join(ws, failed.dir);
    fs.writeFileSync(
      path.join(failedDir, 'starexec_build'),
      buildWith(ws, `ln -sfn ../benchmarks/perf/meta.csv answers.csv\nln -sfn ${other}/benchmarks/perf/meta.csv other.csv\nln -sfn ../benchmarks bench`),
    );
    // The harness fails such a build; the links stay behind all the same.
    await buildSolver(failedDir, 120);
    assert.equal(fs.readlinkSync(path.join(failedDir, 'answers.csv')), '../benchmarks/perf/meta.csv');
    await new CandidateStore(ws).setStatus(failed.id, 'failed', 'failed the smoke gate: crash on sat-small.cnf');
    const planner = [
      tc('read_file', { path: 'benchmarks/perf/meta.csv' }),
      tc('read_file', { path: '../benchmarks/perf/meta.csv' }),
      tc('read_file', { path: 'SATLUTION_0/../benchmarks/verify/meta.csv' }),
      tc('read_file', { path: '.satlution/evals/SATLUTION_1.json' }),
      tc('read_file', { path: 'SATLUTION_1/answers.csv' }),
      tc('read_file', { path: 'SATLUTION_1/other.csv' }),
      tc('read_file', { path: 'SATLUTION_1/bench/perf/meta.csv' }),
      tc('read_file', { path: `${other}/benchmarks/perf/meta.csv` }),
    ];
    const plannerLooks = [
      tc('list_files', { path: '.', depth: 2 }),
      tc('search', { pattern: 'canary|UNSAT', path: '.' }),
      tc('search', { pattern: 'canary', path: 'SATLUTION_1/bench' }),
    ];
    const coder = [
      tc('read_file', { path: 'answers.csv' }),
      tc('read_file', { path: '../benchmarks/verify/meta.csv' }),
      tc('read_file', { path: '../.satlution/evals/SATLUTION_1.json' }),
    ];
    const coderLooks = [tc('search', { pattern: 'canary|UNSAT', path: '.' }), tc('list_files', { path: '.', depth: 1 })];
    server.queue(
      ...planner,
      ...plannerLooks,
      tc('submit_plan', PLAN),
      tc('write_file', { path: 'starexec_build', content: buildWith(ws, 'ln -sfn ../benchmarks/perf/meta.csv answers.csv') }),
      tc('build', {}),
      ...coder,
      ...coderLooks,
      idle,
      idle,
    );
    const s = await llmCycle(ws);
    assert.equal(s.step, 'done', s.outcome ?? '');
    assert.equal(s.candidate, 2);
    for (const call of [...planner, ...coder]) assert.match(resultOf(server, call), /^ERROR: /, `${call.id} was answered`);
    assert.match(resultOf(server, planner[0]!), /benchmarks\/perf\/meta\.csv holds expected answers|not readable here/);
    assert.match(
      resultOf(server, planner[4]!),
      /SATLUTION_1\/answers\.csv (leads outside the candidate directory through a symbolic link|holds expected answers)/,
    );
    assert.match(resultOf(server, plannerLooks[0]!), /^SATLUTION_1\/$/m);
    assert.match(resultOf(server, plannerLooks[0]!), /answers\.csv -> \.\.\/benchmarks\/perf\/meta\.csv/);
    assert.doesNotMatch(resultOf(server, plannerLooks[0]!), /^ *(benchmarks|\.satlution|seeds)\/$/m);
    // The planner was told what it can read, and what it cannot.
    const first = JSON.stringify(server.requests[0]!.body);
    assert.match(first, /The benchmark sets, their expected answers and the stored evaluations are not readable/);
    const bodies = server.requests.map((r) => JSON.stringify(r.body)).join('\n');
    for (const secret of [PERF, EVAL, OTHER, VERIFY_ROW, 'p0.cnf,', 'x.cnf,']) assert.equal(bodies.includes(secret), false, `a request body holds ${secret}`);
  });

  it('(e) links the build made to protected files are not written through (RESULTS.md, bin/starexec_run_default)', async () => {
    const ws = await llmWorkspace(server);
    const writes = [
      tc('write_file', { path: 'r', content: 'PWNED' }),
      tc('write_file', { path: 's', content: '#!/bin/sh\necho "s SATISFIABLE"; exit 10 # PWNED' }),
      tc('edit_file', { path: 'r', search: 'Not evaluated yet.', replace: 'PWNED' }),
      tc('write_file', { path: 'd/starexec_run_default', content: 'PWNED' }),
      tc('write_file', { path: 'f', content: 'PWNED' }),
    ];
    server.queue(
      tc('submit_plan', PLAN),
      tc('write_file', {
        path: 'starexec_build',
        content: buildWith(ws, 'ln -sfn RESULTS.md r\nln -sfn bin/starexec_run_default s\nln -sfn bin d\nrm -f f && ln tinysat.c f'),
      }),
      tc('build', {}),
      ...writes,
      idle,
      idle,
    );
    const s = await llmCycle(ws);
    assert.equal(s.step, 'done', s.outcome ?? '');
    const dir = path.join(ws, candidateDir(s));
    assert.match(resultOf(server, writes[0]!), /^ERROR: r leads to RESULTS\.md, which is protected by the rules/);
    assert.match(resultOf(server, writes[1]!), /^ERROR: s leads to bin\/starexec_run_default, which is protected by the rules/);
    assert.match(resultOf(server, writes[2]!), /^ERROR: r leads to RESULTS\.md, which is protected/);
    assert.match(resultOf(server, writes[3]!), /^ERROR: d\/starexec_run_default leads to bin\/starexec_run_default, which is protected/);
    // A hard link is replaced, not written through: the file it shared stays as it was.
    assert.match(resultOf(server, writes[4]!), /^wrote f/);
    for (const f of ['RESULTS.md', 'bin/starexec_run_default', 'tinysat.c'])
      assert.doesNotMatch(fs.readFileSync(path.join(dir, f), 'utf8'), /PWNED/, `${f} was written through a link`);
    assert.equal(fs.readlinkSync(path.join(dir, 'r')), 'RESULTS.md');
  });

  it('(f) CHANGELOG.md linked outside: finish replaces the link with the changelog, the outside file stays as it was', async () => {
    const ws = await llmWorkspace(server, 'manual');
    const outside = write(path.join(tempDir('satlution-outside-'), 'notes.txt'), 'outside, untouched\n');
    const entry = '## SATLUTION_1\n- starexec_build: tidied.';
    const build = tc('build', {});
    server.queue(
      tc('submit_plan', PLAN),
      tc('write_file', { path: 'starexec_build', content: buildWith(ws, `ln -sfn ${outside} CHANGELOG.md`) }),
      build,
      tc('finish', { changelog: entry }),
    );
    // Manual approval: the plan is approved, the evaluation declined (the changelog is what this test is about).
    const s = await llmCycle(ws, (q) => !q.startsWith('Evaluate'));
    assert.equal(s.step, 'done', s.outcome ?? '');
    // The build ran (the harness fails it for the link it left, which finish then meets).
    resultOf(server, build);
    assert.equal(fs.readFileSync(outside, 'utf8'), 'outside, untouched\n');
    const changelog = path.join(ws, candidateDir(s), 'CHANGELOG.md');
    assert.ok(fs.lstatSync(changelog).isFile(), 'CHANGELOG.md is not a regular file');
    assert.match(fs.readFileSync(changelog, 'utf8'), /^# Changelog\n## SATLUTION_1\n- starexec_build: tidied\.\n$/);
  });
});

/** The candidate a cycle made, as a directory name. */
const candidateDir = (s: CycleState) => {
  assert.ok(s.candidate !== null, 'the cycle made no candidate');
  return `SATLUTION_${s.candidate}`;
};

/** A `satlution cycle --yes` process on `ws`, its output collected. */
function cycleProcess(ws: string): { child: ChildProcess; out: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI, 'cycle', '--yes', '--dir', ws], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, OPENAI_API_KEY: 'sk-test' },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (out += d));
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, out: () => out, exit };
}

/** Waits until `cond` holds, at most `ms`; says whether it did. */
async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** The processes below `pid` (from /proc: parent links, across the sandbox's namespaces), with their names. */
function descendants(pid: number): { pid: number; name: string }[] {
  const procs = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
      const stat = (() => {
        try {
          return fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        } catch {
          return undefined; // gone meanwhile
        }
      })();
      const m = stat && /^(\d+) \((.*)\) \S+ (\d+)/s.exec(stat);
      return m ? [{ pid: Number(m[1]), name: m[2]!, ppid: Number(m[3]) }] : [];
    });
  const out: { pid: number; name: string }[] = [];
  const walk = (p: number) => {
    for (const c of procs.filter((x) => x.ppid === p)) {
      out.push({ pid: c.pid, name: c.name });
      walk(c.pid);
    }
  };
  walk(pid);
  return out;
}

/** Whether a process is still there (and not a zombie waiting for its parent). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/s.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The bound on stopping: well above what a busy machine needs, well below a hang. */
const STOP_WITHIN_S = 15;

/** Sends SIGTERM and returns the exit code and how long the process took to exit. */
async function terminate(p: ReturnType<typeof cycleProcess>): Promise<{ code: number | null; seconds: number }> {
  const t0 = Date.now();
  p.child.kill('SIGTERM');
  const code = await Promise.race([p.exit, new Promise<'late'>((r) => setTimeout(() => r('late'), 60_000))]);
  if (code === 'late') {
    p.child.kill('SIGKILL');
    return { code: null, seconds: Infinity };
  }
  return { code, seconds: (Date.now() - t0) / 1000 };
}

describe('satlution cycle stops on SIGTERM within seconds, in every step, and resumes', function () {
  this.timeout(300000);
  let server: LlmTestServer;
  const running: ReturnType<typeof cycleProcess>[] = [];
  /** Starts a cycle process, remembered so a failed test leaves none behind. */
  const start = (ws: string) => {
    const p = cycleProcess(ws);
    running.push(p);
    return p;
  };

  beforeEach(async () => {
    server = new LlmTestServer();
    await server.start();
  });
  afterEach(async () => {
    for (const p of running.splice(0)) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await server.close();
  });

  it('(g) a stop that is not answered ends the process after the grace, and a second signal at once', async () => {
    // The CLI's handler (src/cli/interrupt.ts) in a process that never ends by itself.
    const handler = path.join(__dirname, '..', '..', 'src', 'cli', 'interrupt.js');
    const script = `require(${JSON.stringify(handler)}).cancelOnSignals(new AbortController(), { command: 'test', graceMs: 3000 }); setInterval(() => {}, 1000); process.stdout.write('ready\\n');`;
    for (const signals of [['SIGTERM'], ['SIGINT', 'SIGTERM']] as const) {
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d));
      child.stderr.on('data', (d: Buffer) => (out += d));
      const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      assert.ok(await until(() => out.includes('ready'), 30_000), out);
      const t0 = Date.now();
      for (const sig of signals) child.kill(sig);
      const code = await Promise.race([exit, new Promise<'late'>((r) => setTimeout(() => r('late'), 30_000))]);
      if (code === 'late') child.kill('SIGKILL');
      const seconds = (Date.now() - t0) / 1000;
      assert.equal(code, 130, out);
      if (signals.length === 1) {
        assert.ok(seconds >= 2.5 && seconds < STOP_WITHIN_S, `it took ${seconds} s`);
        assert.match(out, /satlution test: did not stop within 3 s; exiting/);
      } else {
        assert.ok(seconds < 2.5, `a second signal took ${seconds} s`);
        assert.match(out, /satlution test: SIG(INT|TERM) again: stopping at once/);
      }
    }
  });

  it('(g) while the planner waits for the model', async () => {
    const ws = await llmWorkspace(server);
    server.queue({ kind: 'hang' });
    const p = start(ws);
    assert.ok(await until(() => server.requests.length === 1, 60_000), p.out());
    const t = await terminate(p);
    assert.equal(t.code, 130, p.out());
    assert.ok(t.seconds < STOP_WITHIN_S, `it took ${t.seconds} s to stop\n${p.out()}`);
    assert.equal((await readCycle(ws))?.step, 'plan');
    server.queue(tc('submit_plan', PLAN), idle, idle);
    const again = start(ws);
    assert.equal(await again.exit, 0, again.out());
    assert.match(again.out(), /Resuming cycle 1 at step "plan"/);
    assert.match(again.out(), /^cycle 1: /m);
  });

  it("(g) while the coder's tool is stuck on something slow (a FIFO, then a build that ignores SIGTERM)", async () => {
    const ws = await llmWorkspace(server);
    const slowBuild = tc('build', {});
    server.queue(
      tc('submit_plan', PLAN),
      tc('write_file', { path: 'starexec_build', content: buildWith(ws, 'rm -f pipe && mkfifo pipe') }),
      tc('build', {}),
      tc('read_file', { path: 'pipe' }),
      tc('write_file', { path: 'starexec_build', content: "#!/usr/bin/env bash\ntrap '' TERM INT\nsleep 300\n" }),
      slowBuild,
    );
    const p = start(ws);
    // Stopped while the slow build sleeps. (A harness stuck on the FIFO never gets there: it is
    // stopped after the wait all the same.)
    const sleeping = () => descendants(p.child.pid!).filter((x) => x.name === 'sleep');
    await until(() => sleeping().length > 0, 120_000);
    const running = sleeping();
    const t = await terminate(p);
    assert.equal(t.code, 130, p.out());
    assert.ok(t.seconds < STOP_WITHIN_S, `it took ${t.seconds} s to stop\n${p.out()}`);
    assert.equal(server.requests.length, 6, p.out());
    assert.ok(
      running.length > 0 && (await until(() => running.every((x) => !alive(x.pid)), 10_000)),
      `the build's processes: ${running.map((x) => x.pid).join(', ') || 'none'}`,
    );
    assert.equal((await readCycle(ws))?.step, 'code');
    server.queue(idle, idle);
    const again = start(ws);
    assert.equal(await again.exit, 0, again.out());
    assert.match(again.out(), /Resuming cycle 1 at step "code"/);
    // The FIFO the build left is still there: the candidate ends refused or unfinished, the cycle ends.
    assert.match(again.out(), /^cycle 1: /m);
  });

  it('(g) while an evaluation runs', async () => {
    const ws = await llmWorkspace(server);
    // A champion that sleeps before it answers: every run of the evaluation is slow.
    const src = path.join(ws, 'SATLUTION_0', 'tinysat.c');
    fs.writeFileSync(
      src,
      fs
        .readFileSync(src, 'utf8')
        .replace('#include <stdlib.h>\n', '#include <stdlib.h>\n#include <unistd.h>\n')
        .replace('int main(int argc, char **argv) {\n', 'int main(int argc, char **argv) {\n  sleep(60);\n'),
    );
    server.queue(tc('submit_plan', PLAN), tc('finish', { changelog: '## SATLUTION_1\n- nothing changed.' }));
    const p = start(ws);
    // Stopped while the champion's runs are under way (sleeping in its solver).
    const solvers = () => descendants(p.child.pid!).filter((x) => x.name === 'tinysat');
    assert.ok(await until(() => solvers().length > 0, 120_000), p.out());
    const running = solvers();
    const t = await terminate(p);
    assert.equal(t.code, 130, p.out());
    assert.ok(t.seconds < STOP_WITHIN_S, `it took ${t.seconds} s to stop\n${p.out()}`);
    assert.equal((await readCycle(ws))?.step, 'evaluate');
    // Nothing of the evaluation runs on.
    assert.ok(await until(() => running.every((x) => !alive(x.pid)), 10_000), `solver processes left running: ${running.map((x) => x.pid).join(', ')}`);
    // The next run resumes the evaluation (and is stopped the same way).
    const again = start(ws);
    assert.ok(await until(() => /Resuming cycle 1 at step "evaluate"/.test(again.out()), 60_000), again.out());
    assert.ok(await until(() => descendants(again.child.pid!).some((x) => x.name === 'tinysat'), 120_000), again.out());
    const t2 = await terminate(again);
    assert.equal(t2.code, 130, again.out());
    assert.ok(t2.seconds < STOP_WITHIN_S, `it took ${t2.seconds} s to stop\n${again.out()}`);
    assert.equal((await readCycle(ws))?.step, 'evaluate');
  });
});
