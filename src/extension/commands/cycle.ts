// "SATLUTION: Start / Stop / Resume Evolution Cycle": the core's cycle engine with a cancellable
// progress notification, plan approval in a modal dialog, events in the output channel, and API keys
// from SecretStorage (falling back to the environment).
import * as vscode from 'vscode';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { llmAgent } from '../../core/agents/llmAgent';
import { tunerAgent } from '../../core/agents/tuner';
import { loadConfig } from '../../core/config/load';
import { runCycle } from '../../core/cycle/engine';
import { readCycle } from '../../core/cycle/state';
import { apiKeyFromEnv } from '../../core/llm/factory';
import type { Logger } from '../../core/ports';
import { candidateDirName } from '../../core/workspace/layout';
import { modalApprover } from '../approver';
import type { WorkspaceModel } from '../workspaceModel';

const Args = z.object({ agent: z.enum(['llm', 'tuner']).optional(), yes: z.boolean().optional() }).strict();

export class CycleController implements vscode.Disposable {
  private running: AbortController | undefined;

  constructor(
    private readonly model: WorkspaceModel,
    private readonly secrets: vscode.SecretStorage,
    private readonly log: Logger,
  ) {}

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  async start(raw: unknown, resumeOnly = false): Promise<string | undefined> {
    const ws = this.model.workspaceRoot;
    if (!ws) {
      void vscode.window.showWarningMessage('SATLUTION: initialize a workspace first.');
      return undefined;
    }
    if (this.running) {
      void vscode.window.showInformationMessage('SATLUTION: a cycle is already running (SATLUTION: Stop Evolution Cycle stops it).');
      return undefined;
    }
    const args = Args.safeParse(raw ?? {}).data ?? {};
    const state = await readCycle(ws);
    if (resumeOnly && (!state || state.step === 'done')) {
      void vscode.window.showInformationMessage('SATLUTION: there is no interrupted cycle to resume.');
      return undefined;
    }
    const config = await loadConfig(ws);
    const agentName = args.agent ?? (config.models.planner || config.models.coder ? 'llm' : 'tuner');
    const keys = new Map<string, string | undefined>();
    for (const m of [config.models.planner, config.models.coder, config.models.judge]) if (m) keys.set(m.provider, (await this.secrets.get(secretKey(m.provider))) ?? apiKeyFromEnv(m));
    const abort = new AbortController();
    this.running = abort;
    await vscode.commands.executeCommand('setContext', 'satlution.cycleRunning', true);
    try {
      const s = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `SATLUTION: ${state && state.step !== 'done' ? `resuming cycle ${state.cycle}` : 'evolution cycle'} (${agentName})`, cancellable: true },
        async (progress, token) => {
          const sub = token.onCancellationRequested(() => abort.abort(new Error('stopped')));
          try {
            return await runCycle({
              ws,
              config,
              agent: agentName === 'tuner' ? tunerAgent() : llmAgent({
                      ws,
                      config,
                      apiKey: (_r, m) => keys.get(m.provider),
                      runId: randomBytes(4).toString('hex'),
                      signal: abort.signal,
                      onRetryWait: (w) => {
                        this.log.warn(`${w.role}: ${w.message}; retrying in ${(w.delayMs / 1000).toFixed(0)} s`);
                        const now = 'Retry Now';
                        void vscode.window.showWarningMessage(`SATLUTION ${w.role}: ${w.message}; retrying in ${(w.delayMs / 1000).toFixed(0)} s.`, now).then((a) => a === now && w.retryNow());
                      },
                    }),
              approver: args.yes ? { confirm: async () => true } : modalApprover,
              log: this.log,
              signal: abort.signal,
              onEvent: (e) => {
                if (e.type !== 'step') return this.log.info(e.message);
                this.log.info(`[cycle ${e.cycle}] ${e.step}${e.candidate ? ` ${e.candidate}` : ''}`);
                progress.report({ message: `cycle ${e.cycle}: ${e.step}${e.candidate ? ` ${e.candidate}` : ''}` });
                void this.model.refresh();
              },
            });
          } finally {
            sub.dispose();
          }
        },
      );
      await this.model.refresh();
      const open = 'Open RESULTS.md';
      void vscode.window.showInformationMessage(`SATLUTION: cycle ${s.cycle}: ${s.outcome}`, ...(s.candidate !== null ? [open] : [])).then(async (a) => {
        if (a === open && s.candidate !== null) await vscode.window.showTextDocument(vscode.Uri.file(path.join(ws, candidateDirName(s.candidate), 'RESULTS.md')));
      });
      return s.outcome ?? undefined;
    } catch (e) {
      const now = await readCycle(ws);
      const where = now ? ` (cycle ${now.cycle} stopped at "${now.step}"; SATLUTION: Resume Evolution Cycle continues it)` : '';
      if (abort.signal.aborted) void vscode.window.showInformationMessage(`SATLUTION: cycle stopped${where}.`);
      else {
        this.log.error(`Cycle failed: ${(e as Error).message}`);
        void vscode.window.showErrorMessage(`SATLUTION: ${(e as Error).message}${where}`);
      }
      return undefined;
    } finally {
      this.running = undefined;
      await vscode.commands.executeCommand('setContext', 'satlution.cycleRunning', false);
      await this.model.refresh();
    }
  }

  stop(): void {
    this.running?.abort(new Error('stopped'));
  }

  dispose(): void {
    this.stop();
  }
}

export const secretKey = (provider: string) => `satlution.apiKey.${provider}`;

const SetKeyArgs = z.object({ provider: z.enum(['openai', 'anthropic', 'openai-compatible']), key: z.string().min(1) }).strict();

/** "SATLUTION: Set API Key": stored in SecretStorage, never in settings, logs or webviews. */
export async function setApiKey(raw: unknown, secrets: vscode.SecretStorage): Promise<boolean> {
  const given = SetKeyArgs.safeParse(raw).data;
  const provider =
    given?.provider ??
    (await vscode.window.showQuickPick(['anthropic', 'openai', 'openai-compatible'], { title: 'SATLUTION: Set API Key', placeHolder: 'For which provider?' }));
  if (!provider) return false;
  const key = given?.key ?? (await vscode.window.showInputBox({ title: `SATLUTION: API key for ${provider}`, password: true, ignoreFocusOut: true, prompt: 'Stored in VS Code\'s SecretStorage (the OS keychain where available).' }));
  if (!key) return false;
  await secrets.store(secretKey(provider), key.trim());
  if (!given) void vscode.window.showInformationMessage(`SATLUTION: API key for ${provider} stored.`);
  return true;
}
