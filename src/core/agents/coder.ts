// The coder: a tool loop that edits a candidate, builds it, reads the compiler errors, fixes them, and
// finishes with a CHANGELOG entry. The model only ever acts through the tools (confined to the
// candidate); every turn is in the transcript; an iteration cap ends a loop that goes nowhere.
import { toolSummary } from './agentEvents';
import type { ChatMessage, LlmClient } from '../llm/provider';
import { keptCall, runTool, toolSpecs, type ToolHost } from './coderTools';
import { Transcript } from '../llm/transcript';
import { appendCandidateDoc } from '../workspace/candidateFs';

export interface CoderRequest {
  client: LlmClient;
  host: ToolHost;
  /** The task: the hypothesis and its task list. */
  task: string;
  /** The rules for the coding phase, as text. */
  rules: string;
  transcriptFile: string;
  /** The candidate directory's name, recorded in the transcript. */
  candidate?: string;
  maxIterations?: number;
  signal?: AbortSignal;
  onEvent?: (e: AgentLoopEvent) => void;
}

/** What the planner's and the coder's loops report as they run. */
export type AgentLoopEvent = { type: 'text'; delta: string } | { type: 'tool'; name: string; ok: boolean; summary: string };

export interface CoderOutcome {
  finished: boolean;
  reason: 'finished' | 'iteration_cap' | 'no_progress';
  iterations: number;
  changelog?: string;
}

const SYSTEM = `You are the coding agent of SATLUTION, which evolves a SAT solver's whole repository.
You work in one candidate directory (a copy of the champion) and change it to implement the task.
Act only through the tools. Read before you edit; edit_file needs the exact text of one place.
After changing code, call build and fix every compiler error. Run smoke before you finish.
Finish with finish(changelog) describing what you changed, file by file.`;

export async function runCoder(req: CoderRequest): Promise<CoderOutcome> {
  const transcript = new Transcript(req.transcriptFile);
  const system = `${SYSTEM}\n\n# Rules\n${req.rules}`;
  await transcript.add({ type: 'system', content: system, ...(req.candidate ? { candidate: req.candidate } : {}) });
  const messages: ChatMessage[] = [{ role: 'user', content: req.task }];
  await transcript.add({ type: 'message', message: messages[0]! });
  const max = req.maxIterations ?? 40;
  let idle = 0;
  for (let i = 1; i <= max; i++) {
    req.signal?.throwIfAborted();
    const res = await req.client.chat({
      system,
      messages,
      tools: toolSpecs(),
      ...(req.signal ? { signal: req.signal } : {}),
      onText: (delta) => req.onEvent?.({ type: 'text', delta }),
    });
    // An oversized call is refused, and kept in the conversation as a note only.
    const assistant: ChatMessage = { role: 'assistant', content: res.text, ...(res.toolCalls.length ? { toolCalls: res.toolCalls.map(keptCall) } : {}) };
    messages.push(assistant);
    await transcript.add({ type: 'message', message: assistant, usage: res.usage });
    if (!res.toolCalls.length) {
      // A turn without tools: remind once, then give up rather than loop.
      if (++idle >= 2) {
        await transcript.add({ type: 'end', reason: 'no_progress' });
        return { finished: false, reason: 'no_progress', iterations: i };
      }
      const nudge: ChatMessage = { role: 'user', content: 'Use the tools to continue, or call finish(changelog) when the build and smoke pass.' };
      messages.push(nudge);
      await transcript.add({ type: 'message', message: nudge });
      continue;
    }
    idle = 0;
    for (const call of res.toolCalls) {
      const out = await runTool(call.name, call.arguments, req.host, req.signal);
      const result: ChatMessage = { role: 'tool', toolCallId: call.id, name: call.name, content: out.content, ...(out.isError ? { isError: true } : {}) };
      messages.push(result);
      await transcript.add({ type: 'message', message: result });
      req.onEvent?.({ type: 'tool', name: call.name, ok: !out.isError, summary: toolSummary(out.content) });
      if (out.finished) {
        await appendChangelog(req.host.sandbox.root, out.finished.changelog);
        await transcript.add({ type: 'end', reason: 'finished' });
        return { finished: true, reason: 'finished', iterations: i, changelog: out.finished.changelog };
      }
    }
  }
  await transcript.add({ type: 'end', reason: 'iteration_cap' });
  return { finished: false, reason: 'iteration_cap', iterations: max };
}

/** Adds the entry to CHANGELOG.md, replacing whatever stands there that is not a regular file (a link is never written through). */
async function appendChangelog(dir: string, entry: string): Promise<void> {
  await appendCandidateDoc(dir, 'CHANGELOG.md', `${entry.trim()}\n`, '# Changelog\n');
}
