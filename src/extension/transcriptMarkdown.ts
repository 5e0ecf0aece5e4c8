// An agent transcript (.satlution/transcripts/cycle-N-<role>.jsonl) as a Markdown document a person
// can read: the turns in order, tool calls with their arguments, tool results (long ones shortened),
// token usage. No `vscode` import: unit-testable.
import { z } from 'zod';

const Usage = z.object({ input: z.number(), output: z.number() }).passthrough();
const ToolCall = z.object({ id: z.string(), name: z.string(), arguments: z.string() }).passthrough();
const Message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), content: z.string() }).passthrough(),
  z.object({ role: z.literal('assistant'), content: z.string(), toolCalls: z.array(ToolCall).optional() }).passthrough(),
  z.object({ role: z.literal('tool'), name: z.string(), content: z.string(), isError: z.boolean().optional() }).passthrough(),
]);
const Entry = z.discriminatedUnion('type', [
  z.object({ type: z.literal('system'), content: z.string(), at: z.string().optional() }).passthrough(),
  z.object({ type: z.literal('message'), message: Message, usage: Usage.optional(), at: z.string().optional() }).passthrough(),
  z.object({ type: z.literal('end'), reason: z.string(), at: z.string().optional() }).passthrough(),
]);

/** Tool results longer than this are shortened (the .jsonl keeps them whole). */
export const MAX_RESULT_CHARS = 4000;

/** A fenced block that no backtick run inside `text` can close early. */
function fence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${text.replace(/\n$/, '')}\n${f}`;
}

function shorten(text: string, max = MAX_RESULT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} more characters in the .jsonl transcript]`;
}

const time = (at: string | undefined) => (at && /T(\d\d:\d\d:\d\d)/.exec(at)?.[1]) || '';

function args(json: string): string {
  try {
    return fence(JSON.stringify(JSON.parse(json), null, 2), 'json');
  } catch {
    return fence(json); // the model's malformed arguments, as written
  }
}

export function transcriptMarkdown(lines: readonly unknown[], o: { cycle: number; role: string }): string {
  const out: string[] = [`# Cycle ${o.cycle} — ${o.role} transcript`, ''];
  let turn = 0;
  let tokensIn = 0;
  let tokensOut = 0;
  let skipped = 0;
  for (const raw of lines) {
    const r = Entry.safeParse(raw);
    if (!r.success) {
      skipped++;
      continue;
    }
    const e = r.data;
    const at = time(e.at);
    if (e.type === 'system') out.push('<details><summary>System prompt</summary>', '', fence(e.content, 'text'), '', '</details>', '');
    else if (e.type === 'end') out.push('---', '', `**Ended:** ${e.reason}${at ? ` · ${at}` : ''}`, '');
    else {
      const m = e.message;
      if (e.usage) {
        tokensIn += e.usage.input;
        tokensOut += e.usage.output;
      }
      if (m.role === 'user') out.push(`## ${++turn === 1 ? 'Task' : 'Note to the model'}${at ? ` · ${at}` : ''}`, '', m.content.trim(), '');
      else if (m.role === 'assistant') {
        out.push(`## Model${at ? ` · ${at}` : ''}${e.usage ? ` · ${e.usage.input} in / ${e.usage.output} out tokens` : ''}`, '');
        if (m.content.trim()) out.push(m.content.trim(), '');
        for (const c of m.toolCalls ?? []) out.push(`**Tool call** \`${c.name}\``, '', args(c.arguments), '');
      } else out.push(`**${m.isError ? '✗' : '✓'} ${m.name}** ${m.isError ? 'failed' : 'result'}`, '', fence(shorten(m.content), 'text'), '');
    }
  }
  const summary = `_${lines.length - skipped} entries · ${tokensIn} input / ${tokensOut} output tokens${skipped ? ` · ${skipped} unreadable line${skipped > 1 ? 's' : ''} skipped` : ''}_`;
  out.splice(2, 0, summary, '');
  return out.join('\n');
}
