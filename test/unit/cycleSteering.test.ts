// What a host needs to steer a cycle live: the agents' events (streamed text, tool calls, the tuner's
// steps) through runCycle's onEvent, pause at a step boundary and resume, a plan edited before it is
// approved, and a rejection with its reason.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { recentFailures } from '../../src/core/agents/context';
import { llmAgent } from '../../src/core/agents/llmAgent';
import { runPlanner } from '../../src/core/agents/planner';
import { Sandbox } from '../../src/core/agents/sandbox';
import { runTool, type ToolHost } from '../../src/core/agents/coderTools';
import { tunerAgent } from '../../src/core/agents/tuner';
import { loadConfig } from '../../src/core/config/load';
import { CycleBusyError, hypothesisTitle, runCycle, type AgentEvent, type CycleEvent, type EvolutionAgent } from '../../src/core/cycle/engine';
import { PauseSignal } from '../../src/core/cycle/pause';
import { readCycle } from '../../src/core/store/cycleState';
import type { ChatRequest, ChatResponse, LlmClient } from '../../src/core/llm/provider';
import { silentLogger, type PlanApproval } from '../../src/core/ports';
import { CandidateStore } from '../../src/core/store/candidates';
import { tinysatCycleWorkspace } from './cycleWorkspace';
import { LlmTestServer } from '../fixtures/llmServer';
import { FIXTURES, tempDir, write } from './helpers';

const workspace = (approval: 'auto' | 'semi' | 'manual') => tinysatCycleWorkspace({ approval, perf: 3, perfSeed: 90 });

const MARK = '/* steering test */\n';

/** A scripted agent: plans a comment, and codes it in through the tools; `onCode` runs first. */
function commentAgent(seen: { plans: number; codes: number; hypotheses: string[] }, onCode?: () => void): EvolutionAgent {
  return {
    name: 'scripted',
    async plan({ candidate, emit }) {
      seen.plans++;
      emit?.({ type: 'agent-log', role: 'planner', message: 'planning a comment' });
      return {
        title: 'add a comment',
        hypothesis: `# ${candidate}: add a comment\n\n## Change\nPut a comment on top of tinysat.c.\n\n## Rationale\nA harmless change.\n\n## Expected effect\nNone.\n`,
      };
    },
    async code({ host, hypothesis, emit }) {
      seen.codes++;
      seen.hypotheses.push(hypothesis);
      onCode?.();
      const { abs } = await host.sandbox.resolve('tinysat.c');
      const r = await runTool('write_file', JSON.stringify({ path: 'tinysat.c', content: MARK + fs.readFileSync(abs, 'utf8') }), host);
      emit?.({ type: 'agent-tool', role: 'coder', name: 'write_file', ok: !r.isError, summary: r.content });
      const b = await host.build();
      assert.equal(b.ok, true, b.text);
      return { finished: true, detail: 'done' };
    },
  };
}

const steps = (events: CycleEvent[]) => events.flatMap((e) => (e.type === 'step' ? [e.step] : []));

describe('cycle steering: pause and resume', function () {
  this.timeout(180000);

  it('a pause asked for during code stops at the next step, saved; resume finishes the cycle without redoing work', async () => {
    const ws = await workspace('auto');
    const config = await loadConfig(ws);
    const seen = { plans: 0, codes: 0, hypotheses: [] as string[] };
    const pause = new PauseSignal();
    const events: CycleEvent[] = [];
    const s1 = await runCycle({
      ws,
      config,
      agent: commentAgent(seen, () => pause.request()),
      approver: { confirm: async () => true },
      log: silentLogger,
      jobs: 2,
      pause,
      onEvent: (e) => events.push(e),
    });
    assert.equal(s1.step, 'evaluate', 'the code step finished, and the cycle stopped before evaluating');
    assert.deepEqual(steps(events), ['plan', 'plan', 'approve', 'code', 'evaluate']);
    assert.deepEqual(events[events.length - 1], { type: 'paused', cycle: 1, step: 'evaluate', candidate: 'SATLUTION_1' });
    assert.equal((await readCycle(ws))!.step, 'evaluate', 'the step is saved');
    assert.ok(!fs.existsSync(path.join(ws, '.satlution', 'evals', 'SATLUTION_1.json')), 'nothing was evaluated');
    assert.ok(fs.readFileSync(path.join(ws, 'SATLUTION_1', 'tinysat.c'), 'utf8').startsWith(MARK));

    const after: CycleEvent[] = [];
    const s2 = await runCycle({
      ws,
      config,
      agent: commentAgent(seen),
      approver: { confirm: async () => true },
      log: silentLogger,
      jobs: 2,
      pause: new PauseSignal(),
      onEvent: (e) => after.push(e),
    });
    assert.equal(s2.step, 'done');
    assert.equal(s2.cycle, 1);
    assert.match(s2.outcome ?? '', /stays champion|new champion/);
    assert.deepEqual(steps(after), ['evaluate', 'analyze', 'decide', 'done']);
    // The evaluation reported its progress: each gate from 0 to its total, and the race (perf, side by side).
    const progress = after.filter((e) => e.type === 'progress');
    for (const gate of ['smoke', 'verify']) {
      const mine = progress.filter((e) => e.what === gate && e.candidate === 'SATLUTION_1');
      assert.ok(mine.length >= 2, `${gate} reported its runs`);
      assert.equal(mine[0]!.done, 0);
      assert.equal(mine[mine.length - 1]!.done, mine[0]!.total, `${gate} counted to its total`);
      assert.ok(
        mine.slice(1).every((e) => e.etaS !== null && e.elapsedS >= 0),
        'an estimate once a run finished',
      );
    }
    assert.ok(
      progress.some((e) => e.what === 'side by side' && e.done > 0),
      'the race reported its runs',
    );
    assert.ok(
      progress.some((e) => e.what === 'building' && e.total === 0),
      'the build is named, without a count',
    );
    assert.ok(!progress.some((e) => e.what === 'comply' || e.what === 'build'), 'no gate name a person would not read as a step');
    assert.ok(fs.existsSync(path.join(ws, 'SATLUTION_1', 'RESULTS.md')));
  });

  it('a pause while the plan waits for a person ends the run at approve; resume asks again', async () => {
    const ws = await workspace('semi');
    const config = await loadConfig(ws);
    const seen = { plans: 0, codes: 0, hypotheses: [] as string[] };
    const pause = new PauseSignal();
    const asked: PlanApproval[] = [];
    // The host withdraws its question to pause (as the extension does).
    const withdraw = { confirm: async () => true, plan: async (p: PlanApproval) => (asked.push(p), pause.request(), Promise.reject(new Error('paused'))) };
    const s1 = await runCycle({ ws, config, agent: commentAgent(seen), approver: withdraw, log: silentLogger, pause });
    assert.equal(s1.step, 'approve');
    assert.equal((await readCycle(ws))!.step, 'approve');
    assert.deepEqual(
      asked.map((p) => [p.cycle, p.candidate, p.title]),
      [[1, 'SATLUTION_1', 'add a comment']],
    );
    assert.match(asked[0]!.hypothesis, /^# SATLUTION_1: add a comment/);
    // Without a pause, a failing approver is an error (the step stays resumable).
    await assert.rejects(
      runCycle({
        ws,
        config,
        agent: commentAgent(seen),
        approver: { confirm: async () => true, plan: async () => Promise.reject(new Error('window closed')) },
        log: silentLogger,
      }),
      /window closed/,
    );
    assert.equal((await readCycle(ws))!.step, 'approve');
    // Resumed: asked again; a rejection stops it before any code.
    const s2 = await runCycle({
      ws,
      config,
      agent: commentAgent(seen),
      approver: { confirm: async () => true, plan: async (p) => (asked.push(p), { approved: false, reason: 'touches nothing that matters ' }) },
      log: silentLogger,
    });
    assert.equal(asked.length, 2);
    assert.equal(s2.outcome, 'the plan was rejected (touches nothing that matters)');
    assert.equal(seen.codes, 0);
    const c = (await new CandidateStore(ws).load()).index.candidates.find((x) => x.id === 1)!;
    assert.deepEqual([c.status, c.detail], ['discarded', 'plan rejected: touches nothing that matters']);
    // The next plan hears why.
    assert.match(await recentFailures(ws), /turned down:\nSATLUTION_1: plan rejected: touches nothing that matters/);
  });

  it('codes from HYPOTHESIS.md as the person edited it before approving, under its new title', async () => {
    const ws = await workspace('semi');
    const config = await loadConfig(ws);
    const seen = { plans: 0, codes: 0, hypotheses: [] as string[] };
    const edited = '# SATLUTION_1: add a comment, and say why\n\n## Change\nPut a comment on top of tinysat.c explaining the solver.\n';
    const approver = {
      confirm: async () => false,
      plan: async (p: PlanApproval) => {
        fs.writeFileSync(path.join(ws, p.candidate, 'HYPOTHESIS.md'), edited);
        return { approved: true };
      },
    };
    const events: CycleEvent[] = [];
    const pause = new PauseSignal();
    const s = await runCycle({
      ws,
      config,
      agent: commentAgent(seen, () => pause.request()),
      approver,
      log: silentLogger,
      pause,
      onEvent: (e) => events.push(e),
    });
    assert.equal(s.step, 'evaluate');
    assert.deepEqual(seen.hypotheses, [edited], 'the coder got the edited plan');
    assert.equal(s.title, 'add a comment, and say why');
    const code = events.find((e): e is Extract<CycleEvent, { type: 'step' }> => e.type === 'step' && e.step === 'code');
    assert.equal(code?.title, 'add a comment, and say why', 'the step event carries the new title');
    assert.equal(hypothesisTitle('## Change\nno heading', 'SATLUTION_1'), undefined);
    assert.equal(hypothesisTitle('# Just a title  \n', 'SATLUTION_1'), 'Just a title');
  });
});

describe('cycle steering: the agents at work', function () {
  this.timeout(180000);

  it('the LLM planner and coder stream text and report each tool call through runCycle, in step order', async () => {
    const server = new LlmTestServer();
    await server.start();
    try {
      const ws = await workspace('auto');
      const cfg = path.join(ws, 'satlution.yaml');
      fs.writeFileSync(
        cfg,
        fs
          .readFileSync(cfg, 'utf8')
          .replace(
            'models: {}\n',
            `models:\n  planner: { provider: openai-compatible, model: p, base_url: ${server.url}/v1 }\n  coder: { provider: openai-compatible, model: c, base_url: ${server.url}/v1 }\n`,
          ),
      );
      const plan = {
        title: 'A comment on top',
        change: 'Add a comment at the top of tinysat.c, nothing else.',
        rationale: 'A harmless change that the gates can check end to end.',
        expected_effect: { sat: 'same', unsat: 'same', par2: 'same' },
        risks: 'None at all.',
        tasks: ['Add the comment.', 'Build and finish.'],
      };
      server.queue(
        {
          kind: 'tool',
          text: 'Reading the solver first.',
          name: 'read_file',
          args: JSON.stringify({ path: 'SATLUTION_0/tinysat.c', start_line: 1, end_line: 3 }),
        },
        { kind: 'tool', name: 'read_file', args: JSON.stringify({ path: 'SATLUTION_0/missing.c' }) },
        { kind: 'tool', text: 'Submitting.', name: 'submit_plan', args: JSON.stringify(plan) },
        {
          kind: 'tool',
          text: 'Adding the comment.',
          name: 'edit_file',
          args: JSON.stringify({ path: 'tinysat.c', search: '/* tinysat', replace: '/* steered */\n/* tinysat' }),
        },
        { kind: 'tool', name: 'build', args: '{}' },
        { kind: 'tool', name: 'finish', args: JSON.stringify({ changelog: '- tinysat.c: a comment on top.' }) },
      );
      const config = await loadConfig(ws);
      const events: CycleEvent[] = [];
      const pause = new PauseSignal();
      const s = await runCycle({
        ws,
        config,
        agent: llmAgent({ ws, config, apiKey: () => 'test-key', runId: 'r1' }),
        approver: { confirm: async () => true },
        log: silentLogger,
        pause,
        // Stop before evaluating: the agents' part is what this test is about.
        onEvent: (e) => (events.push(e), e.type === 'step' && e.step === 'evaluate' && pause.request()),
      });
      assert.equal(s.step, 'evaluate');
      const agent = events.filter((e): e is AgentEvent => e.type.startsWith('agent-'));
      const text = (role: string) => agent.flatMap((e) => (e.type === 'agent-text' && e.role === role ? [e.delta] : [])).join('');
      assert.equal(text('planner'), 'Reading the solver first.Submitting.');
      assert.equal(text('coder'), 'Adding the comment.');
      assert.ok(agent.filter((e) => e.type === 'agent-text').length >= 3, 'text arrives as it streams');
      const tools = agent.flatMap((e) => (e.type === 'agent-tool' ? [`${e.role} ${e.name} ${e.ok ? 'ok' : 'failed'}`] : []));
      assert.deepEqual(tools, [
        'planner read_file ok',
        'planner read_file failed',
        'planner submit_plan ok',
        'coder edit_file ok',
        'coder build ok',
        'coder finish ok',
      ]);
      const submit = agent.find((e) => e.type === 'agent-tool' && e.name === 'submit_plan');
      assert.equal(submit?.type === 'agent-tool' && submit.summary, 'plan accepted: A comment on top');
      const failed = agent.find((e) => e.type === 'agent-tool' && !e.ok);
      assert.ok(failed?.type === 'agent-tool' && failed.summary.length > 0 && !failed.summary.includes('\n'), 'a one-line summary');
      // Planner events come before the plan is approved, coder events while coding.
      const at = (pred: (e: CycleEvent) => boolean) => events.findIndex(pred);
      const approveAt = at((e) => e.type === 'step' && e.step === 'approve');
      const codeAt = at((e) => e.type === 'step' && e.step === 'code');
      const evalAt = at((e) => e.type === 'step' && e.step === 'evaluate');
      events.forEach((e, i) => {
        if (e.type.startsWith('agent-') && 'role' in e)
          assert.ok(e.role === 'planner' ? i < approveAt : i > codeAt && i < evalAt, `${e.type} ${e.role} at ${i}`);
      });
    } finally {
      await server.close();
    }
  });

  it('the planner reports streamed text and every tool call with its outcome', async () => {
    const champion = path.join(tempDir(), 'SATLUTION_0');
    fs.cpSync(path.join(FIXTURES, 'seeds', 'tinysat'), champion, { recursive: true });
    const turns: { text: string; calls: [string, string][] }[] = [
      {
        text: 'Let me look.',
        calls: [
          ['search', JSON.stringify({ pattern: 'int main' })],
          ['write_file', JSON.stringify({ path: 'x', content: 'y' })],
        ],
      },
      { text: '', calls: [['submit_plan', '{not json']] },
    ];
    const client: LlmClient = {
      provider: 'openai-compatible',
      model: 'scripted',
      async chat(req: ChatRequest): Promise<ChatResponse> {
        const t = turns.shift();
        if (!t) throw new Error('out of turns');
        for (const piece of t.text.match(/.{1,4}/g) ?? []) req.onText?.(piece);
        return {
          text: t.text,
          toolCalls: t.calls.map(([name, args], i) => ({ id: `c${i}`, name, arguments: args })),
          usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
          stop: 'tool_use',
          model: 'scripted',
        };
      },
    };
    const seen: string[] = [];
    await assert.rejects(
      runPlanner({
        client,
        championDir: champion,
        candidate: 'SATLUTION_1',
        context: { rules: '', codeMap: '', metrics: '', failures: '', notes: '', directive: 'x' },
        transcriptFile: path.join(tempDir(), 't.jsonl'),
        maxIterations: 2,
        onEvent: (e) => seen.push(e.type === 'text' ? `text:${e.delta}` : `${e.name}:${e.ok}:${e.summary}`),
      }),
      /no valid plan in 2 turns/,
    );
    assert.deepEqual(seen.slice(0, 3), ['text:Let ', 'text:me l', 'text:ook.']);
    assert.equal(seen.length, 6);
    assert.match(seen[3]!, /^search:true:tinysat\.c:\d+: int main\(/);
    assert.match(seen[4]!, /^write_file:false:the planner cannot use write_file; it can read/);
    assert.match(seen[5]!, /^submit_plan:false:the plan is not valid JSON \(/);
  });

  it('the tuner reports its steps as log lines and tool rows, and applies the values HYPOTHESIS.md names', async () => {
    const dir = path.join(tempDir(), 'SATLUTION_1');
    write(path.join(dir, 'src', 'options.h'), '#define OPTIONS \\\n  OPTION (delay, 400, 0, 1000, "busy loop") \\\n  OPTION (other, 5, 0, 10, "unused")\n');
    const built: string[] = [];
    const host: ToolHost = {
      sandbox: new Sandbox(dir, ['HYPOTHESIS.md']),
      build: async () => (built.push('b'), { ok: true, text: 'build ok' }),
      smoke: async () => ({ ok: true, text: '' }),
    };
    const agent = tunerAgent({ only: ['delay'] });
    const events: AgentEvent[] = [];
    const p = await agent.plan({ ws: tempDir(), cycle: 3, championDir: dir, candidate: 'SATLUTION_1', emit: (e) => events.push(e) });
    assert.match(p.title, /^tune delay 400 -> \d+$/);
    assert.deepEqual(
      events.map((e) => e.type),
      ['agent-log', 'agent-log'],
    );
    assert.match(events[0]!.type === 'agent-log' ? events[0]!.message : '', /2 tunable options in src\/options\.h; choosing among delay/);
    // The person edits the value before approving: the edit is what lands in the source.
    const edited = p.hypothesis.replace(/`delay` from 400 to \d+/, '`delay` from 400 to 123');
    assert.notEqual(edited, p.hypothesis);
    events.length = 0;
    const out = await agent.code({ ws: tempDir(), cycle: 3, candidateDir: dir, hypothesis: edited, host, emit: (e) => events.push(e) });
    assert.deepEqual(out, { finished: true, detail: 'options changed' });
    assert.match(fs.readFileSync(path.join(dir, 'src', 'options.h'), 'utf8'), /OPTION \(delay, 123, 0, 1000, "busy loop"\)/);
    assert.deepEqual(
      events.map((e) => (e.type === 'agent-tool' ? `${e.name}:${e.ok}:${e.summary}` : e.type === 'agent-log' ? e.message : e.type)),
      ['edit_file:true:src/options.h: delay = 123', 'building', 'build:true:build ok'],
    );
    assert.equal(built.length, 1);
    // A value outside the option's range is refused before anything is edited.
    const out2 = await tunerAgent().code({ ws: tempDir(), cycle: 4, candidateDir: dir, hypothesis: '`delay` from 123 to 5000', host });
    assert.deepEqual(out2, { finished: false, detail: 'delay = 5000 is outside its range 0..1000' });
  });
});

describe('one cycle at a time per workspace', () => {
  it('refuses to run while another live process holds the cycle, and takes over a dead holder', async () => {
    const ws = tempDir();
    fs.mkdirSync(path.join(ws, '.satlution'), { recursive: true });
    const lock = path.join(ws, '.satlution', 'cycle.lock');
    const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      fs.writeFileSync(lock, String(holder.pid));
      const agent = { name: 'never', plan: async () => assert.fail('planned while locked'), code: async () => assert.fail('coded while locked') };
      const req = { ws, config: undefined as never, agent, approver: { confirm: async () => true }, log: silentLogger };
      await assert.rejects(runCycle(req), (e: unknown) => e instanceof CycleBusyError && e.pid === holder.pid && /another process \(pid \d+/.test(e.message));
      assert.equal(fs.readFileSync(lock, 'utf8'), String(holder.pid), 'the holder keeps its lock');
      holder.kill('SIGKILL');
      await new Promise((r) => holder.once('exit', r));
      // The holder died without releasing: the next run takes over (and fails later for its own reason).
      await assert.rejects(runCycle(req), (e: unknown) => !(e instanceof CycleBusyError) && /no champion/.test((e as Error).message));
      assert.ok(!fs.existsSync(lock), 'the lock is released when the run ends');
    } finally {
      holder.kill('SIGKILL');
    }
  });
});

describe('approval: manual', () => {
  it('asks before evaluating the coded candidate, and a decline discards it unevaluated', async () => {
    const ws = await workspace('manual');
    const seen = { plans: 0, codes: 0, hypotheses: [] as string[] };
    const questions: string[] = [];
    const approver = { confirm: async (q: string) => (questions.push(q), false), plan: async () => ({ approved: true }) };
    const s = await runCycle({ ws, config: await loadConfig(ws), agent: commentAgent(seen), approver, log: silentLogger });
    assert.equal(seen.codes, 1);
    assert.deepEqual(questions, ['Evaluate SATLUTION_1? Review its diff with the parent first.']);
    assert.equal(s.outcome, 'the evaluation was declined');
    assert.ok(!fs.existsSync(path.join(ws, '.satlution', 'evals', 'SATLUTION_1.json')), 'nothing was evaluated');
    const c = (await new CandidateStore(ws).load()).index.candidates.find((x) => x.id === 1)!;
    assert.deepEqual([c.status, c.detail], ['discarded', 'evaluation declined by a person']);
  });
});
