// The post-mortem: turns what went wrong in an evaluation into failure signatures (normalized so the
// same mistake in two cycles has the same key), records them, and clusters them across candidates.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { appendJsonLine, readJsonLines } from '../store/atomic';
import { STATE_DIR } from '../layout';

export const SignatureKind = z.enum(['rule', 'build', 'link', 'crash', 'wrong', 'invalid_model', 'invalid_proof', 'missing_proof', 'smoke_timeout', 'docs']);
export type SignatureKind = z.infer<typeof SignatureKind>;

export const Signature = z.object({
  at: z.string(),
  candidate: z.string(),
  kind: SignatureKind,
  /** Normalized: identifiers, numbers and paths replaced, so repeats match. */
  key: z.string(),
  /** One concrete occurrence, for the person reading the patch. */
  example: z.string(),
});
export type Signature = z.infer<typeof Signature>;

/** What the post-mortem reads of an evaluation (a subset of the `eval --json` document). */
export const EvalForPostmortem = z.object({
  gates: z.array(
    z.object({
      gate: z.string(),
      ok: z.boolean(),
      failures: z.array(z.string()).default([]),
      diagnostics: z.array(z.object({ file: z.string().nullable(), line: z.number().nullable(), severity: z.string(), message: z.string() })).optional(),
      compliance: z.object({ violations: z.array(z.object({ rule: z.string(), check: z.string(), severity: z.string(), file: z.string().nullable(), line: z.number().nullable(), message: z.string() })) }).optional(),
    }),
  ),
});

/** Normalizes a compiler message: quoted names, numbers and paths become placeholders. */
export function normalize(message: string): string {
  return message
    .replace(/[‘'"`][^‘’'"`]*[’'"`]/g, "'*'")
    .replace(/\/[\w./-]+/g, '<path>')
    .replace(/\b\d+(\.\d+)?\b/g, 'N')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 160);
}

export function signaturesOf(candidate: string, evaluation: z.infer<typeof EvalForPostmortem>, docsMissing: string[], now = new Date()): Signature[] {
  const at = now.toISOString();
  const out: Signature[] = [];
  const add = (kind: SignatureKind, key: string, example: string) => {
    if (!out.some((s) => s.key === key)) out.push({ at, candidate, kind, key, example: example.slice(0, 400) });
  };
  for (const d of docsMissing) add('docs', `docs:${d}`, `${candidate} has no ${d}`);
  for (const g of evaluation.gates) {
    if (g.ok) continue;
    if (g.gate === 'comply')
      for (const v of g.compliance?.violations ?? []) if (v.severity === 'error') add('rule', `rule:${v.rule}/${v.check}`, `${v.file ?? ''}${v.line ? `:${v.line}` : ''} ${v.message}`);
    if (g.gate === 'build') {
      for (const d of (g.diagnostics ?? []).filter((x) => x.severity === 'error')) {
        const link = d.file === null;
        add(link ? 'link' : 'build', `${link ? 'link' : 'build'}:${normalize(d.message)}`, `${d.file ? `${d.file}:${d.line}: ` : ''}${d.message}`);
      }
      if (!(g.diagnostics ?? []).some((x) => x.severity === 'error')) add('build', 'build:failed without compiler errors', g.failures[0] ?? 'build failed');
    }
    if (g.gate === 'smoke' || g.gate === 'verify' || g.gate === 'perf')
      for (const f of g.failures) {
        const [status, ...rest] = f.split(': ');
        const detail = rest.join(': ');
        if (status === 'crash') add('crash', `crash:${/\((SIG[A-Z]+)\)/.exec(detail)?.[1] ?? (/exited with code (\d+)/.test(detail) ? 'exit code' : /output/.test(detail) ? 'output flood' : 'other')}`, detail);
        else if (status === 'wrong') add('wrong', `wrong:${/^(SAT|UNSAT) claimed/.exec(detail)?.[1] ?? 'answer'}`, detail);
        else if (status === 'invalid_model' || status === 'invalid_proof' || status === 'missing_proof') add(status, status, detail);
        else if ((status === 'timeout' || status === 'memout') && g.gate === 'smoke') add('smoke_timeout', `smoke:${status}`, detail);
      }
  }
  return out;
}

export class SignatureLog {
  readonly file: string;
  constructor(workspaceDir: string) {
    this.file = path.join(workspaceDir, STATE_DIR, 'postmortem', 'signatures.jsonl');
  }

  async record(sigs: Signature[]): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    for (const s of sigs) await appendJsonLine(this.file, s);
  }

  async all(): Promise<Signature[]> {
    const { records } = await readJsonLines(this.file);
    return records.flatMap((r) => {
      const s = Signature.safeParse(r);
      return s.success ? [s.data] : [];
    });
  }
}

export interface Cluster {
  key: string;
  kind: SignatureKind;
  candidates: string[];
  examples: string[];
}

/** Groups signatures by key; a cluster seen in two or more candidates is a repeated failure. */
export function clusters(sigs: Signature[]): Cluster[] {
  const by = new Map<string, Cluster>();
  for (const s of sigs) {
    const c = by.get(s.key) ?? { key: s.key, kind: s.kind, candidates: [], examples: [] };
    if (!c.candidates.includes(s.candidate)) {
      c.candidates.push(s.candidate);
      c.examples.push(`${s.candidate}: ${s.example}`);
    }
    by.set(s.key, c);
  }
  return [...by.values()].sort((a, b) => b.candidates.length - a.candidates.length || a.key.localeCompare(b.key));
}
