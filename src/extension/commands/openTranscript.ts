// "SATLUTION: Open Agent Transcript": a cycle's planner or coder conversation as a read-only Markdown
// document (a virtual document over the .jsonl transcript), shown rendered and refreshed while the agent is still at work.
import * as vscode from 'vscode';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { parseTranscriptName, transcriptFile, TRANSCRIPTS_DIR } from '../../core/llm/transcript';
import { readJsonLines } from '../../core/store/atomic';
import { transcriptMarkdown } from '../transcriptMarkdown';
import { showMarkdown } from '../markdownPreview';
import type { WorkspaceModel } from '../workspaceModel';
import { Disposable } from '../disposable';

export const TRANSCRIPT_SCHEME = 'satlution-transcript';

const Role = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/);
const Args = z.object({ cycle: z.number().int().positive().optional(), role: Role.optional() }).strict();

const uriOf = (cycle: number, role: string) => vscode.Uri.from({ scheme: TRANSCRIPT_SCHEME, path: `/cycle-${cycle}-${role}.md` });

export class TranscriptContentProvider extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly changed = this.register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.changed.event;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly model: WorkspaceModel) {
    super();
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const ws = this.model.workspaceRoot;
    const t = parseTranscriptName(path.posix.basename(uri.path).replace(/\.md$/, '.jsonl'));
    if (!ws || !t) return '# No such transcript\n';
    const { records } = await readJsonLines(transcriptFile(ws, t.cycle, t.role));
    return records.length ? transcriptMarkdown(records, t) : `# Cycle ${t.cycle} — ${t.role} transcript\n\n_Nothing recorded yet._\n`;
  }

  /** Re-reads the open transcripts soon (agents append while they work; once a second is enough). */
  refreshSoon(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      for (const d of vscode.workspace.textDocuments) if (d.uri.scheme === TRANSCRIPT_SCHEME) this.changed.fire(d.uri);
    }, 1000);
  }

  override dispose(): void {
    clearTimeout(this.timer);
    super.dispose();
  }
}

/** The transcripts on disk, newest cycle first, planner before coder. */
export async function listTranscripts(ws: string): Promise<{ cycle: number; role: string; file: string; bytes: number; modified: Date }[]> {
  const dir = path.join(ws, TRANSCRIPTS_DIR);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const found = await Promise.all(
    names.map(async (name) => {
      const t = parseTranscriptName(name);
      if (!t) return undefined;
      const st = await fs.stat(path.join(dir, name)).catch(() => undefined);
      return st?.isFile() ? { ...t, file: path.join(dir, name), bytes: st.size, modified: st.mtime } : undefined;
    }),
  );
  const order = (role: string) => ['planner', 'coder', 'judge'].indexOf(role) >>> 0; // unknown roles last
  return found.filter((x) => x !== undefined).sort((a, b) => b.cycle - a.cycle || order(a.role) - order(b.role) || a.role.localeCompare(b.role));
}

/** Opens a cycle's transcript rendered as Markdown (a person reads it); returns the document's URI, or undefined when none was opened. */
export async function openTranscript(raw: unknown, model: WorkspaceModel): Promise<vscode.Uri | undefined> {
  const ws = model.workspaceRoot;
  if (!ws) {
    void vscode.window.showWarningMessage('SATLUTION: initialize a workspace first.');
    return undefined;
  }
  const args = Args.safeParse(raw ?? {}).data ?? {};
  const all = (await listTranscripts(ws)).filter(
    (t) => (args.cycle === undefined || t.cycle === args.cycle) && (args.role === undefined || t.role === args.role),
  );
  if (!all.length) {
    void vscode.window.showInformationMessage(
      `SATLUTION: no agent transcript${args.cycle ? ` for cycle ${args.cycle}` : ''} yet (the LLM planner and coder write them; the offline tuner has none).`,
    );
    return undefined;
  }
  let pick = all.length === 1 ? all[0] : undefined;
  if (!pick) {
    const items = all.map((t) => ({
      label: `Cycle ${t.cycle} · ${t.role}`,
      description: `${(t.bytes / 1024).toFixed(t.bytes < 10240 ? 1 : 0)} KB`,
      detail: `updated ${t.modified.toLocaleString()}`,
      t,
    }));
    pick = (
      await vscode.window.showQuickPick(items, { title: 'SATLUTION: Open Agent Transcript', placeHolder: 'Which cycle and agent?', matchOnDescription: true })
    )?.t;
  }
  if (!pick) return undefined;
  const uri = uriOf(pick.cycle, pick.role);
  await showMarkdown(uri, { preview: true });
  return uri;
}
