import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { codeMap, DEFAULT_DIRECTIONS, drawDirection, metricsHistory } from '../../src/core/agents/context';
import { Plan, runPlanner } from '../../src/core/agents/planner';
import { parseConfig } from '../../src/core/config/load';
import type { ChatMessage, ChatRequest, ChatResponse, LlmClient } from '../../src/core/llm/provider';
import { sampleEvalDoc } from '../fixtures/evalDocs';
import { FIXTURES, tempDir, write } from './helpers';

class Scripted implements LlmClient {
  readonly provider = 'openai-compatible' as const;
  readonly model = 'scripted';
  seen: ChatRequest[] = [];
  constructor(private readonly turns: ((m: ChatMessage[]) => [string, string][])[]) {}
  async chat(req: ChatRequest): Promise<ChatResponse> {
    this.seen.push(req);
    const calls = this.turns[this.seen.length - 1]!(req.messages).map(([name, args], i) => ({ id: `t${this.seen.length}_${i}`, name, arguments: args }));
    return { text: '', toolCalls: calls, usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, stop: 'tool_use', model: 'scripted' };
  }
}

const PLAN: Plan = {
  title: 'Highest-index-first decisions',
  change: 'In tinysat.c, dpll(): pick the highest unassigned variable instead of the lowest.',
  rationale: 'Planted formulas number variables arbitrarily; starting from the end changes nothing in theory but the test wants a concrete plan.',
  expected_effect: { sat: 'about the same', unsat: 'about the same', par2: 'within noise' },
  risks: 'None for soundness: only the decision order changes.',
  tasks: ['Change the loop in dpll() that picks the decision variable.', 'Build and run the smoke set.'],
};

describe('planner', () => {
  it('reads the code, has an incomplete plan refused, and submits a valid one', async () => {
    const champion = path.join(tempDir(), 'SATLUTION_0');
    fs.cpSync(path.join(FIXTURES, 'seeds', 'tinysat'), champion, { recursive: true });
    const model = new Scripted([
      () => [['read_file', JSON.stringify({ path: 'tinysat.c', start_line: 1, end_line: 12 })]],
      (m) => {
        const t = m[m.length - 1] as Extract<ChatMessage, { role: 'tool' }>;
        assert.match(t.content, /^ {4}1 {2}\/\* tinysat/);
        return [
          ['write_file', JSON.stringify({ path: 'x.c', content: 'no' })],
          ['submit_plan', JSON.stringify({ ...PLAN, rationale: undefined })],
        ];
      },
      (m) => {
        const tools = m.filter((x): x is Extract<ChatMessage, { role: 'tool' }> => x.role === 'tool').slice(-2);
        assert.match(tools[0]!.content, /the planner cannot use write_file/);
        assert.match(tools[1]!.content, /the plan is incomplete: rationale: /);
        return [['submit_plan', JSON.stringify(PLAN)]];
      },
    ]);
    const map = await codeMap(champion);
    assert.match(map, /^tinysat\.c \(\d+ lines\): value, dpll, main$/m);
    const r = await runPlanner({
      client: model,
      championDir: champion,
      candidate: 'SATLUTION_1',
      context: {
        rules: 'R02: only definitive answers.',
        codeMap: map,
        metrics: 'SATLUTION_0: pass',
        failures: '(none)',
        notes: 'Try decision order.',
        directive: DEFAULT_DIRECTIONS[3]!.text,
      },
      transcriptFile: path.join(tempDir(), 'planner.jsonl'),
    });
    assert.deepEqual(r.plan, PLAN);
    assert.match(r.hypothesis, /^# SATLUTION_1: Highest-index-first decisions\n\n## Change\n/);
    for (const h of ['## Rationale', '## Expected effect', '- PAR-2: within noise', '## Risks', '## Tasks\n1. Change the loop'])
      assert.ok(r.hypothesis.includes(h), h);
    const prompt = model.seen[0]!;
    assert.match(prompt.system, /R02: only definitive answers/);
    assert.match(
      (prompt.messages[0] as { content: string }).content,
      /# Directive for this cycle\nImprove decisions[\s\S]*# The champion's code\ntinysat\.c[\s\S]*# Notes from the person steering\nTry decision order\./,
    );
    assert.ok(!fs.existsSync(path.join(champion, 'x.c')), 'the planner wrote nothing');
  });

  it('draws directives by weight, reproducibly', () => {
    const counts = new Map<string, number>();
    for (let c = 1; c <= 2000; c++) {
      const d = drawDirection(DEFAULT_DIRECTIONS, c).text;
      counts.set(d, (counts.get(d) ?? 0) + 1);
    }
    assert.equal(drawDirection(DEFAULT_DIRECTIONS, 17), drawDirection(DEFAULT_DIRECTIONS, 17));
    const heavy = counts.get(DEFAULT_DIRECTIONS[0]!.text)!;
    const light = counts.get(DEFAULT_DIRECTIONS[5]!.text)!;
    assert.ok(heavy > 2 * light, `weight 3 drawn ${heavy} times, weight 1 ${light} times`);
  });

  it('withholds PAR-2 from the agents until the configured cycle', async () => {
    const ws = tempDir();
    const m = sampleEvalDoc().metrics!;
    write(
      path.join(ws, '.satlution', 'evals', 'SATLUTION_0.json'),
      JSON.stringify(sampleEvalDoc({ metrics: { ...m, n: 8, solved: 8, solved_sat: 6, solved_unsat: 2, par2: 0.23, par2_sat: 0.22, par2_unsat: 0.25 } })),
    );
    const early = await metricsHistory(ws, 3, 10);
    assert.match(early, /SATLUTION_0: pass; solved 8\/8 \(SAT 6, UNSAT 2\)$/m);
    assert.doesNotMatch(early, /PAR-2 0\.23/);
    assert.match(early, /withheld until cycle 10/);
    assert.match(await metricsHistory(ws, 10, 10), /PAR-2 0\.23 s \(SAT 0\.22, UNSAT 0\.25\)/);
  });
});

describe('planner context without the answers', () => {
  it('says a wrong answer was wrong, not what the answer is', async () => {
    const ws = tempDir();
    const detail = '1 of 2 instances failed: SAT claimed on a.cnf, but it is UNSAT (meta.csv)';
    write(
      path.join(ws, '.satlution', 'evals', 'SATLUTION_1.json'),
      JSON.stringify(sampleEvalDoc({ verdict: 'fail', gates: [{ gate: 'verify', ok: false, detail, failures: [], reused: 0 }] })),
    );
    const h = await metricsHistory(ws, 1, 10);
    assert.match(h, /SATLUTION_1: fail \(failed verify: 1 of 2 instances failed: SAT claimed on a\.cnf, which is wrong \(meta\.csv\)\)/);
    assert.doesNotMatch(h, /it is UNSAT/);
  });
});

describe('planner diagnosis', () => {
  it("reads a failed candidate's results in the workspace, and writes nothing", async () => {
    const ws = tempDir();
    fs.cpSync(path.join(FIXTURES, 'seeds', 'tinysat'), path.join(ws, 'SATLUTION_0'), { recursive: true });
    write(path.join(ws, 'SATLUTION_2', 'RESULTS.md'), '# Results\nVerdict: **fail**\n- crash: segfault (SIGSEGV) on uf50-01.cnf after 0.02 s\n');
    write(path.join(ws, '.satlution', 'evals', 'SATLUTION_2.json'), JSON.stringify({ verdict: 'fail' }));
    const model = new Scripted([
      () => [['search', JSON.stringify({ pattern: 'SIGSEGV', path: '.' })]],
      (m) => {
        const t = m[m.length - 1] as Extract<ChatMessage, { role: 'tool' }>;
        assert.match(t.content, /SATLUTION_2\/RESULTS\.md:3: - crash: segfault \(SIGSEGV\) on uf50-01\.cnf/);
        return [
          ['write_file', JSON.stringify({ path: 'SATLUTION_0/tinysat.c', content: '' })],
          ['submit_plan', JSON.stringify(PLAN)],
        ];
      },
    ]);
    await runPlanner({
      client: model,
      championDir: path.join(ws, 'SATLUTION_0'),
      workspace: ws,
      candidate: 'SATLUTION_3',
      context: { rules: '', codeMap: '', metrics: '', failures: 'SATLUTION_2: failed the smoke gate', notes: '', directive: 'd' },
      transcriptFile: path.join(tempDir(), 'p.jsonl'),
    });
    assert.match(
      (model.seen[0]!.messages[0] as { content: string }).content,
      /the champion is SATLUTION_0\/; the other candidates, failed ones too, are SATLUTION_<n>\/ with their sources, HYPOTHESIS\.md \(the plan\), CHANGELOG\.md \(what was done\) and RESULTS\.md/,
    );
    assert.ok(fs.readFileSync(path.join(ws, 'SATLUTION_0', 'tinysat.c'), 'utf8').length > 100, 'the planner cannot write');
  });
});

describe('planner directions from satlution.yaml', () => {
  it('are validated and drawn', async () => {
    const r = parseConfig('seeds: [{ name: k, source: . }]\nplanner:\n  directions:\n    - { text: "Only ever tune restarts.", weight: 1 }\n');
    assert.ok(r.ok);
    assert.equal(drawDirection(r.config.planner.directions!, 5).text, 'Only ever tune restarts.');
    const bad = parseConfig('seeds: [{ name: k, source: . }]\nplanner:\n  directions:\n    - { text: "x", weight: -1 }\n');
    assert.ok(!bad.ok && bad.issues.some((i) => i.key === 'planner.directions.0.weight'));
  });
});
