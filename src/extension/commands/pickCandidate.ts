// Which candidate a command is about: a Cycles-tree node, a directory name from a script, CodeLens or
// webview ("SATLUTION_7"), or, from the palette, the person's pick.
import * as vscode from 'vscode';
import { z } from 'zod';
import type { CandidateView } from '../../core/workspace/snapshot';
import type { CyclesNode } from '../views/cyclesTree';
import type { WorkspaceModel } from '../workspaceModel';

const Dir = z.string().regex(/^SATLUTION_\d+$/);
const Arg = z.union([Dir, z.object({ candidate: Dir }).loose()]);

export function candidateFromArg(model: WorkspaceModel, arg: unknown): CandidateView | undefined {
  const node = arg as CyclesNode | undefined;
  if (node && typeof node === 'object' && 'kind' in node && (node.kind === 'candidate' || node.kind === 'doc')) return find(model, node.candidate.dir);
  const p = Arg.safeParse(arg);
  if (!p.success) return undefined;
  return find(model, typeof p.data === 'string' ? p.data : p.data.candidate);
}

export async function pickCandidate(
  model: WorkspaceModel,
  arg: unknown,
  o: { title: string; placeHolder?: string; filter?: (c: CandidateView) => boolean },
): Promise<CandidateView | undefined> {
  const given = candidateFromArg(model, arg);
  if (given || (arg !== undefined && arg !== null)) {
    if (!given) void vscode.window.showWarningMessage(`SATLUTION: no candidate ${typeof arg === 'string' ? arg : ''} in this workspace.`);
    return given;
  }
  const items = (model.snapshot?.candidates ?? [])
    .filter((c) => !c.missing && (o.filter?.(c) ?? true))
    .sort((a, b) => b.id - a.id)
    .map((c) => ({ label: c.dir, description: [c.champion ? 'champion' : '', c.seed ? `seed ${c.seed}` : c.status].filter(Boolean).join(' · '), c }));
  if (!items.length) {
    void vscode.window.showInformationMessage('SATLUTION: no candidate to choose from.');
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { title: o.title, placeHolder: o.placeHolder ?? 'Which candidate?', matchOnDescription: true }))?.c;
}

const find = (model: WorkspaceModel, dir: string) => model.snapshot?.candidates.find((c) => c.dir === dir);
