// "SATLUTION: Configure Models": the planner and coder models (and the judge, for strategies that
// screen proposals) written into satlution.yaml, keeping the rest of the file; then the API key if
// none is stored. Set API Key offers this when the key's provider has no model yet.
import * as vscode from 'vscode';
import { z } from 'zod';
import { loadConfig } from '../../core/config/load';
import { writeModels, type ModelChoice } from '../../core/config/edit';
import { strategyFor } from '../../core/strategy/registry';
import { Provider, type ModelConfig } from '../../core/config/schema';
import type { WorkspaceModel } from '../workspaceModel';

/** Arguments for scripts and the other commands (every field asked for when absent). */
const Args = z.object({ provider: Provider.optional(), model: z.string().min(1).optional(), base_url: z.url().optional() }).strict();

/** A model id to start from; the person edits it (ids change faster than this list). */
const SUGGESTED: Record<ModelConfig['provider'], string> = { anthropic: 'claude-sonnet-4-5', openai: 'gpt-5', 'openai-compatible': 'qwen2.5-coder:32b' };

/** Asks for a provider, a model and (for a local server) its URL, and writes them; true when written. */
export async function configureModels(
  raw: unknown,
  ctx: { model: WorkspaceModel; secrets: vscode.SecretStorage; secretKey: (p: string) => string },
): Promise<boolean> {
  const ws = ctx.model.workspaceRoot;
  if (!ws) {
    void vscode.window.showWarningMessage('SATLUTION: initialize a workspace first.');
    return false;
  }
  const args = Args.safeParse(raw ?? {}).data ?? {};
  const provider =
    args.provider ??
    Provider.safeParse(
      (await vscode.window.showQuickPick(Provider.options, {
        title: 'SATLUTION: Configure Models',
        placeHolder: 'Which provider runs the planner and the coder?',
      })) ?? '',
    ).data;
  if (!provider) return false;
  const model =
    args.model ??
    (
      await vscode.window.showInputBox({
        title: `SATLUTION: ${provider} model id`,
        value: SUGGESTED[provider],
        prompt: "The provider's model id, as its API names it.",
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() ? undefined : 'A model id is needed'),
      })
    )?.trim();
  if (!model) return false;
  let base_url = args.base_url;
  if (provider === 'openai-compatible' && !base_url) {
    base_url = (
      await vscode.window.showInputBox({
        title: 'SATLUTION: server URL',
        value: 'http://localhost:11434/v1',
        prompt: 'The OpenAI-compatible endpoint (vLLM, Ollama, LM Studio, a gateway).',
        ignoreFocusOut: true,
        validateInput: (v) => (z.url().safeParse(v.trim()).success ? undefined : 'A URL such as http://localhost:11434/v1'),
      })
    )?.trim();
    if (!base_url) return false;
  }
  const choice: ModelChoice = { provider, model, ...(base_url ? { base_url } : {}) };
  const config = await loadConfig(ws).catch(() => undefined);
  const roles = config && strategyFor(config).screens ? (['planner', 'coder', 'judge'] as const) : (['planner', 'coder'] as const);
  try {
    await writeModels(ws, roles, choice);
  } catch (e) {
    void vscode.window
      .showErrorMessage(`SATLUTION: ${(e as Error).message}`, 'Open satlution.yaml')
      .then((a) => a && vscode.commands.executeCommand('satlution.openConfig'));
    return false;
  }
  await ctx.model.refresh();
  const needsKey = provider !== 'openai-compatible' && !(await ctx.secrets.get(ctx.secretKey(provider)));
  const setKey = 'Set API Key…';
  void vscode.window
    .showInformationMessage(
      `SATLUTION: ${roles.join(', ')} now use ${provider} ${model}; cycles run the LLM agents.${needsKey ? ` No ${provider} API key is stored yet.` : ''}`,
      ...(needsKey ? [setKey] : []),
    )
    .then((a) => {
      if (a === setKey) void vscode.commands.executeCommand('satlution.setApiKey', { provider, offerModels: false });
    });
  return true;
}
