// DOM helpers: elements are built with DOM APIs only; data is always set as text, never as markup.
export type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) if (c) el.append(c);
  return el;
}

/** A plain button styled as a link (keyboard-reachable, no extra chrome). */
export function linkButton(label: string, onClick: () => void, o: { aria?: string; title?: string; cls?: string } = {}): HTMLButtonElement {
  const b = h('button', { type: 'button', class: `link${o.cls ? ` ${o.cls}` : ''}`, ...(o.aria ? { 'aria-label': o.aria } : {}), ...(o.title ? { title: o.title } : {}) }, label);
  b.addEventListener('click', onClick);
  return b;
}

let ids = 0;
export const uid = (prefix: string): string => `${prefix}-${++ids}`;
