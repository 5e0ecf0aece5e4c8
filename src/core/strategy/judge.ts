// The judge of the SIFT strategy: a model reads one proposal (its HYPOTHESIS.md and its diff against
// the parent, with the rules) and scores it 1-10 against a rubric, through one tool call whose
// arguments are validated. A malformed answer is told what was wrong and asked again; a model that
// never answers properly is an error, never a made-up score.
import { z } from 'zod';
import { Transcript } from '../llm/transcript';
import { untilValidCall } from '../llm/toolCall';
import type { ChatMessage, LlmClient, ToolSpec } from '../llm/provider';

export const JudgeScore = z
  .object({
    score: z.number().int().min(1).max(10).describe('1 = will not help or risks wrong answers, 10 = very likely a clear PAR-2 gain'),
    rationale: z.string().min(10).max(3000).describe('the reasons, briefly'),
  })
  .strict();
export type JudgeScore = z.infer<typeof JudgeScore>;

export interface JudgeInput {
  cycle: number;
  candidate: string;
  hypothesis: string;
  /** Unified diff against the parent. */
  diff: string;
  rules: string;
  rubric: string;
}

export interface Judge {
  score(input: JudgeInput, signal?: AbortSignal): Promise<JudgeScore>;
}

export const DEFAULT_RUBRIC = `Score how likely this change is to lower the solver's PAR-2 on the benchmark set without ever
risking a wrong answer:
- soundness: could it break SAT models, UNSAT proofs (DRAT) or termination? Any real risk caps the score at 3;
- mechanism: is there a concrete reason it should help (search, propagation, restarts, memory)?
- evidence in the code: does the diff implement what the hypothesis says, completely and nothing else?
- scope: small, targeted changes are easier to trust than sweeping ones;
- effect size: tuning inside noise (a few percent) deserves a middling score at best.`;

const TOOL: ToolSpec = {
  name: 'submit_score',
  description: 'Submit the score of this proposal (call exactly once).',
  parameters: z.toJSONSchema(JudgeScore) as Record<string, unknown>,
};

const SYSTEM = `You are the judge of SATLUTION, which evolves a SAT solver's source code. Several proposals were
made for this cycle and only the best-scored ones will be benchmarked (benchmarks take hours), so
score honestly and spread your scores. Read the plan and the diff, then call submit_score once.`;

/** `client` per cycle (usage is metered per cycle); `transcriptFile` per cycle, when transcripts are kept. */
export function llmJudge(client: (cycle: number) => LlmClient, opts: { transcriptFile?: (cycle: number) => string; attempts?: number } = {}): Judge {
  return {
    async score(input, signal) {
      const transcript = opts.transcriptFile ? new Transcript(opts.transcriptFile(input.cycle)) : undefined;
      await transcript?.add({ type: 'system', content: SYSTEM, candidate: input.candidate });
      const messages: ChatMessage[] = [
        {
          role: 'user',
          content: `# Rubric\n${input.rubric}\n\n# Rules of this project\n${input.rules || '(none)'}\n\n# Proposal ${input.candidate}: HYPOTHESIS.md\n${input.hypothesis}\n\n# Diff against the parent\n\`\`\`diff\n${input.diff || '(no changes)'}\n\`\`\``,
        },
      ];
      await transcript?.add({ type: 'message', message: messages[0]! });
      const attempts = opts.attempts ?? 3;
      const out = await untilValidCall({
        chat: (m) => client(input.cycle).chat({ system: SYSTEM, messages: m, tools: [TOOL], maxOutputTokens: 2000, ...(signal ? { signal } : {}) }),
        messages,
        tool: TOOL,
        schema: JudgeScore,
        attempts,
        nudge: 'Call submit_score with your score (an integer 1-10) and rationale.',
        again: 'Call submit_score again with valid arguments.',
        accept: async (score) => ({ value: score }),
        onMessage: async (message, usage) => transcript?.add({ type: 'message', message, ...(usage ? { usage } : {}) }),
      });
      if ('value' in out) return out.value;
      const problem = out.problem;
      throw new Error(`the judge gave no valid score for ${input.candidate} after ${attempts} attempts (${problem})`);
    },
  };
}
