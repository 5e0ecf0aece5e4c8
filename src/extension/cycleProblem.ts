// Why a cycle stopped with an error, as Steering shows it: the message and the actions that fix it
// (Set API Key, Configure Models, Open satlution.yaml, Resume). No `vscode` import: unit-tested.
import type { FixAction, Problem } from '../shared/steeringProtocol';

/** The kinds of core/llm/provider.ts LlmError, read by name so a wrapped copy is recognised too. */
const LLM_KINDS = new Set(['auth', 'model', 'context', 'rate_limit', 'server', 'network', 'bad_request', 'aborted', 'budget']);

/** The problem of an error a cycle ended with; `resumable`: the cycle stopped part way (Resume runs the step again). */
export function cycleProblem(e: unknown, resumable: boolean): Problem {
  const err = e instanceof Error ? e : new Error(String(e));
  const kind = (err as { kind?: unknown }).kind;
  const llm = err.name === 'LlmError' && typeof kind === 'string' && LLM_KINDS.has(kind) ? kind : undefined;
  const resume: FixAction[] = resumable ? ['resume'] : [];
  const text = err.message.split('\n')[0]!.trim() || err.name;
  const actions = ((): FixAction[] => {
    if (err.name === 'ConfigError') return ['openConfig'];
    if (err.name === 'SessionError') return /no models/.test(err.message) ? ['configureModels', 'runTuner'] : ['openConfig'];
    if (llm === 'auth' || (!llm && /\bAPI key\b/i.test(err.message))) return ['setApiKey', 'configureModels', ...resume];
    if (llm === 'model') return ['configureModels', 'openConfig', ...resume];
    if (llm === 'budget') return ['openConfig', ...resume];
    return [...resume, 'showLog'];
  })();
  // A ConfigError lists every issue on its own line: the first is enough here, the Problems panel has all.
  return { text: err.name === 'ConfigError' ? `${text} ${err.message.split('\n')[1]?.trim() ?? ''}`.trim() : text, actions };
}
