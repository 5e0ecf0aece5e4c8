// A rule is a markdown file with YAML front matter: the text guides the agents; the checks in the
// front matter are enforced by the compliance checker before any evaluation.
import { z } from 'zod';

export const Phase = z.enum(['planning', 'coding', 'pre-evaluation', 'post-evaluation', 'knowledge']);
export type Phase = z.infer<typeof Phase>;

const C_SOURCES = ['**/*.c', '**/*.h', '**/*.cc', '**/*.cpp', '**/*.cxx', '**/*.hpp', '**/*.hh'];
const severity = z.enum(['error', 'warning']).default('error');
/** A check may apply in fewer phases than its rule (e.g. RESULTS.md only after evaluation). */
const phases = z.array(z.enum(['planning', 'coding', 'pre-evaluation', 'post-evaluation', 'knowledge'])).optional();

export const Check = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('forbidden_pattern'),
    id: z.string().regex(/^[a-z0-9-]+$/),
    /** A JavaScript regular expression, matched against code with comments and string literals blanked (see in_strings). */
    pattern: z.string().min(1),
    files: z.array(z.string()).default(C_SOURCES),
    /** Files (globs) where the pattern is allowed, e.g. the solver's own allocator. */
    except: z.array(z.string()).default([]),
    /** Also match inside string literals (only comments blanked): paths and file names a solver opens live in strings. */
    in_strings: z.boolean().default(false).describe('match inside string literals too; comments are still ignored'),
    message: z.string().min(1),
    severity,
    phases,
  }).strict(),
  z.object({
    kind: z.literal('required_file'),
    path: z.string().min(1),
    executable: z.boolean().default(false),
    /** Must also be non-empty. */
    non_empty: z.boolean().default(true),
    severity,
    phases,
  }).strict(),
  z.object({
    kind: z.literal('required_section'),
    file: z.string().min(1),
    /** A markdown heading that must be present (any level), matched case-insensitively. */
    heading: z.string().min(1),
    severity,
    phases,
  }).strict(),
  z.object({
    kind: z.literal('protected_path'),
    /** Globs of paths that must be identical to the parent candidate's. */
    paths: z.array(z.string()).min(1),
    severity,
    phases,
  }).strict(),
  z.object({
    kind: z.literal('banned_include'),
    headers: z.array(z.string()).min(1),
    files: z.array(z.string()).default(C_SOURCES),
    severity,
    phases,
  }).strict(),
  z.object({
    kind: z.literal('banned_link_flag'),
    flags: z.array(z.string()).min(1),
    /** Build files searched for the flags. */
    files: z.array(z.string()).default(['starexec_build', '**/makefile*', '**/Makefile*', '**/*.mk', '**/CMakeLists.txt', 'configure', 'build/*.sh']),
    severity,
    phases,
  }).strict(),
  z.object({
    kind: z.literal('instance_name_leak'),
    /** Shortest instance name (without extension) looked for anywhere in the code; shorter ones collide with identifiers. */
    min_length: z.number().int().positive().default(8),
    /**
     * Shorter names (down to this length) are looked for inside string literals, as whole tokens, when
     * they hold a digit, `-` or `_` (so `"php-9-8"` is found, and `"true"` in an option parser is not).
     */
    min_length_in_strings: z.number().int().positive().default(3),
    files: z.array(z.string()).default(C_SOURCES),
    severity,
    phases,
  }).strict(),
]);
export type Check = z.infer<typeof Check>;

export const RuleFrontMatter = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'use letters, digits, "_" and "-"'),
    title: z.string().min(1),
    scope: z.enum(['always', 'auto', 'manual']).default('always'),
    /** With scope auto: the rule applies when a changed file matches one of these. */
    globs: z.array(z.string()).default([]),
    phases: z.array(Phase).min(1),
    version: z.number().int().positive().default(1),
    checks: z.array(Check).default([]),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.scope === 'auto' && r.globs.length === 0) ctx.addIssue({ code: 'custom', path: ['globs'], message: 'scope auto needs at least one glob' });
    for (const [i, c] of r.checks.entries())
      if (c.kind === 'forbidden_pattern')
        try {
          new RegExp(c.pattern);
        } catch (e) {
          ctx.addIssue({ code: 'custom', path: ['checks', i, 'pattern'], message: `not a valid regular expression: ${(e as Error).message}` });
        }
  });
export type RuleFrontMatter = z.infer<typeof RuleFrontMatter>;

export interface Rule extends RuleFrontMatter {
  /** File name inside .rules/ */
  file: string;
  body: string;
}
