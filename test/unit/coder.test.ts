// The coder's tool loop, driven by a scripted model on a real solver source: it reads, makes a
// mistake, hits a real compile error, fixes it, builds, runs the smoke set and finishes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCoder } from '../../src/core/agents/coder';
import { Sandbox } from '../../src/core/agents/sandbox';
import { runTool, type ToolHost } from '../../src/core/agents/coderTools';
import { Transcript } from '../../src/core/llm/transcript';
import { InstanceCache } from '../../src/core/instances/instances';
import { buildSolver } from '../../src/core/run/buildSolver';
import { runGates } from '../../src/core/eval/gates';
import { ResultsStore } from '../../src/core/eval/resultsStore';
import type { ChatMessage, ChatRequest, ChatResponse, LlmClient, ToolCall } from '../../src/core/llm/provider';
import { FIXTURES, tempDir, write } from './helpers';

/** A model whose every turn is a function of the conversation so far (Cline-style scripted model). */
class ScriptedModel implements LlmClient {
  readonly provider = 'openai-compatible' as const;
  readonly model = 'scripted';
  turns = 0;
  constructor(private readonly script: ((messages: ChatMessage[]) => { text?: string; calls?: [string, unknown | string][] })[]) {}
  async chat(req: ChatRequest): Promise<ChatResponse> {
    const step = this.script[this.turns++];
    if (!step) throw new Error('the script ran out of turns');
    const { text = '', calls = [] } = step(req.messages);
    const toolCalls: ToolCall[] = calls.map(([name, args], i) => ({
      id: `c${this.turns}_${i}`,
      name,
      arguments: typeof args === 'string' ? args : JSON.stringify(args),
    }));
    return { text, toolCalls, usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 }, stop: toolCalls.length ? 'tool_use' : 'end', model: this.model };
  }
}

const lastTool = (m: ChatMessage[]) => [...m].reverse().find((x): x is Extract<ChatMessage, { role: 'tool' }> => x.role === 'tool')!;

function candidate(): { dir: string; host: ToolHost; smokeDir: string } {
  const dir = path.join(tempDir(), 'SATLUTION_1');
  fs.cpSync(path.join(FIXTURES, 'seeds', 'tinysat'), dir, { recursive: true });
  write(path.join(dir, 'starexec_build'), '#!/bin/sh\nset -e\ncd "$(dirname "$0")"\nmake -s\nmkdir -p bin\ncp tinysat bin/\n');
  write(path.join(dir, 'bin', 'starexec_run_default'), '#!/bin/sh\nexec "$(dirname "$0")/tinysat" "$1"\n');
  fs.chmodSync(path.join(dir, 'bin', 'starexec_run_default'), 0o755);
  const smokeDir = tempDir();
  fs.copyFileSync(path.join(FIXTURES, 'cnf', 'sat-small.cnf'), path.join(smokeDir, 'sat-small.cnf'));
  fs.writeFileSync(path.join(smokeDir, 'meta.csv'), 'instance,family,expected\nsat-small.cnf,tiny,SAT\n');
  const state = tempDir();
  const host: ToolHost = {
    sandbox: new Sandbox(dir, ['bin/starexec_run_default', 'HYPOTHESIS.md']),
    async build() {
      const b = await buildSolver(dir, 60);
      return b.ok
        ? { ok: true, text: 'build ok' }
        : {
            ok: false,
            text: `${b.detail}\n${b.diagnostics
              .filter((d) => d.severity === 'error')
              .map((d) => `${d.file}:${d.line}: ${d.message}`)
              .join('\n')}`,
          };
    },
    async smoke() {
      const r = await runGates({
        solverDir: dir,
        build: false,
        buildTimeoutS: 60,
        stages: [{ gate: 'smoke', dir: smokeDir, timeoutS: 5, memMb: 512, checkProofs: false }],
        jobs: 1,
        cache: new InstanceCache(path.join(state, 'cache')),
        store: new ResultsStore(path.join(state, 'runs.jsonl')),
        maxProofMb: 10,
      });
      const g = r.gates[0]!;
      return { ok: g.ok, text: g.ok ? g.detail : g.failures.join('\n') };
    },
  };
  return { dir, host, smokeDir };
}

describe('coder agent: a tool loop with a scripted model', function () {
  this.timeout(60000);

  it('edits a real solver, hits a compile error, fixes it, builds, smokes and finishes', async () => {
    const { dir, host } = candidate();
    const model = new ScriptedModel([
      () => ({ text: 'Reading the decision code.', calls: [['search', { pattern: 'int pick' }]] }),
      (m) => {
        assert.match(lastTool(m).content, /tinysat\.c:\d+: int pick = 0;/);
        return { calls: [['edit_file', { path: 'tinysat.c', search: 'int pick=0;', replace: 'x' }]] };
      },
      (m) => {
        assert.equal(lastTool(m).isError, true);
        assert.match(lastTool(m).content, /does not occur in tinysat\.c; read the file again/);
        // Decide the highest unassigned variable first; the missing semicolon is a real mistake.
        return {
          calls: [
            [
              'edit_file',
              {
                path: 'tinysat.c',
                search: '  int pick = 0;\n  for (int v = 1; v <= nvars && !pick; v++) if (!assign[v]) pick = v;',
                replace: '  int pick = 0\n  for (int v = nvars; v >= 1 && !pick; v--) if (!assign[v]) pick = v;',
              },
            ],
          ],
        };
      },
      () => ({ calls: [['build', {}]] }),
      (m) => {
        const t = lastTool(m);
        assert.equal(t.isError, true);
        assert.match(t.content, /tinysat\.c:\d+: expected/);
        return { text: 'A semicolon is missing.', calls: [['edit_file', { path: 'tinysat.c', search: '  int pick = 0\n', replace: '  int pick = 0;\n' }]] };
      },
      () => ({ calls: [['build', {}]] }),
      (m) => {
        assert.equal(lastTool(m).content, 'build ok');
        return { calls: [['smoke', {}]] };
      },
      (m) => {
        assert.equal(lastTool(m).isError, undefined, lastTool(m).content);
        return { calls: [['finish', { changelog: '## SATLUTION_1\n- tinysat.c: decide the highest unassigned variable first.' }]] };
      },
    ]);
    const transcriptFile = path.join(tempDir(), 'coder.jsonl');
    const events: string[] = [];
    const out = await runCoder({
      client: model,
      host,
      task: 'Decide variables from the highest index down.',
      rules: 'R04: no threads.',
      transcriptFile,
      onEvent: (e) => e.type === 'tool' && events.push(`${e.name}:${e.ok}`),
    });
    assert.deepEqual([out.finished, out.reason, out.iterations], [true, 'finished', 8]);
    assert.deepEqual(events, ['search:true', 'edit_file:false', 'edit_file:true', 'build:false', 'edit_file:true', 'build:true', 'smoke:true', 'finish:true']);
    assert.match(fs.readFileSync(path.join(dir, 'tinysat.c'), 'utf8'), /for \(int v = nvars; v >= 1 && !pick; v--\)/);
    assert.match(fs.readFileSync(path.join(dir, 'CHANGELOG.md'), 'utf8'), /decide the highest unassigned variable first/);
    const t = await new Transcript(transcriptFile).read();
    assert.equal(t[0]!.type, 'system');
    assert.equal(t.at(-1)!.type, 'end');
    assert.equal(t.filter((e) => e.type === 'message' && e.message.role === 'tool').length, 8);
  });

  it('stops at the iteration cap and when the model stops using tools', async () => {
    const { host } = candidate();
    const looping = new ScriptedModel(Array(5).fill(() => ({ calls: [['list_files', {}]] })));
    const capped = await runCoder({ client: looping, host, task: 't', rules: '', transcriptFile: path.join(tempDir(), 't.jsonl'), maxIterations: 3 });
    assert.deepEqual([capped.finished, capped.reason, capped.iterations], [false, 'iteration_cap', 3]);
    const chatty = new ScriptedModel([() => ({ text: 'I think...' }), () => ({ text: 'Still thinking.' })]);
    const idle = await runCoder({ client: chatty, host, task: 't', rules: '', transcriptFile: path.join(tempDir(), 't.jsonl') });
    assert.deepEqual([idle.finished, idle.reason], [false, 'no_progress']);
  });
});

describe('coder tools: confinement and exact edits', () => {
  it('never leaves the candidate directory, and refuses protected paths', async () => {
    const { dir, host } = candidate();
    const outside = tempDir();
    write(path.join(outside, 'secret.txt'), 'secret');
    fs.symlinkSync(outside, path.join(dir, 'escape'));
    for (const [tool, args, msg] of [
      ['read_file', { path: '../../etc/passwd' }, /outside the candidate directory/],
      ['read_file', { path: '/etc/passwd' }, /outside the candidate directory/],
      ['read_file', { path: 'escape/secret.txt' }, /leads outside the candidate directory through a symbolic link/],
      ['write_file', { path: 'escape/new.txt', content: 'x' }, /through a symbolic link/],
      ['write_file', { path: 'bin/starexec_run_default', content: 'exec true' }, /protected by the rules/],
      ['edit_file', { path: 'HYPOTHESIS.md', search: 'a', replace: 'b' }, /protected by the rules/],
    ] as const) {
      const r = await runTool(tool, JSON.stringify(args), host);
      assert.equal(r.isError, true, `${tool} ${JSON.stringify(args)}`);
      assert.match(r.content, msg);
    }
    assert.ok(!fs.existsSync(path.join(outside, 'new.txt')));
  });

  it('answers malformed and unknown calls with errors the model can act on', async () => {
    const { host } = candidate();
    assert.match((await runTool('edit_file', '{"path": "tinysat.c", ', host)).content, /not valid JSON/);
    assert.match((await runTool('edit_file', '{"path": "tinysat.c"}', host)).content, /invalid arguments for edit_file: search: .*replace: /);
    assert.match((await runTool('rm_rf', '{}', host)).content, /unknown tool "rm_rf"; the tools are: list_files, read_file/);
    assert.match((await runTool('read_file', '{"path": "nope.c"}', host)).content, /no such file/);
  });

  it('edits exactly one occurrence, keeps CRLF line endings, and truncates long output', async () => {
    const { dir, host } = candidate();
    write(path.join(dir, 'crlf.c'), 'int a;\r\nint b;\r\nint a2;\r\n');
    const twice = await runTool('edit_file', JSON.stringify({ path: 'crlf.c', search: 'int a', replace: 'x' }), host);
    assert.match(twice.content, /occurs 2 times in crlf\.c; include more surrounding lines/);
    const ok = await runTool('edit_file', JSON.stringify({ path: 'crlf.c', search: 'int a;\nint b;', replace: 'int a;\nint c;' }), host);
    assert.equal(ok.isError, false, ok.content);
    assert.equal(fs.readFileSync(path.join(dir, 'crlf.c'), 'utf8'), 'int a;\r\nint c;\r\nint a2;\r\n');
    write(path.join(dir, 'big.txt'), 'x'.repeat(50_000));
    const big = await runTool('read_file', '{"path": "big.txt"}', host);
    assert.match(
      big.content,
      /\[\.\.\. truncated: \d+ more characters; ask for a narrower range: the file has 1 lines, read them in parts with start_line and end_line\]$/,
    );
    assert.ok(big.content.length < 21_000);
  });
});
