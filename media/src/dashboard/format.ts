// Number formats shared by the charts, the table and the summaries.
const nf = (digits: number) => new Intl.NumberFormat(undefined, { minimumFractionDigits: digits, maximumFractionDigits: digits });
const f0 = nf(0);
const f1 = nf(1);
const f2 = nf(2);
const f3 = nf(3);

/** Seconds with as many decimals as help at that size. */
export function secs(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return x < 10 ? f2.format(x) : x < 1000 ? f1.format(x) : f0.format(x);
}

export const secsUnit = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : `${secs(x)} s`);

export function usd(x: number): string {
  return x === 0 ? '$0' : x < 0.01 ? `$${f3.format(x)}` : x < 1000 ? `$${f2.format(x)}` : `$${f0.format(x)}`;
}

export function tokens(x: number): string {
  return x >= 1e9
    ? `${f1.format(x / 1e9)}B`
    : x >= 1e6
      ? `${f1.format(x / 1e6)}M`
      : x >= 1e4
        ? `${f0.format(x / 1e3)}k`
        : x >= 1e3
          ? `${f1.format(x / 1e3)}k`
          : f0.format(x);
}

/** Relative change from a to b, e.g. "−4.2%". */
export function change(a: number, b: number): string {
  if (a === 0) return '';
  const p = ((b - a) / a) * 100;
  return `${p > 0 ? '+' : p < 0 ? '−' : '±'}${f1.format(Math.abs(p))}%`;
}

export function ago(iso: string, now = Date.now()): string {
  const s = (Date.parse(iso) - now) / 1000;
  if (!Number.isFinite(s)) return '';
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, n] of [
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
  ] as const)
    if (Math.abs(s) >= n) return rtf.format(Math.round(s / n), unit);
  return 'just now';
}

export const count = (n: number, one: string, many = `${one}s`): string => `${f0.format(n)} ${n === 1 ? one : many}`;
