/** The smallest p-value written as a number; below it, the normal tail is past what the approximation says (and may underflow to 0). */
export const P_FLOOR = 1e-6;

/** A p-value for people: "p = 0.012", or "p < 1e-6" where it is smaller (never "p = 0.0", which reads as certainty). */
export const pPhrase = (p: number): string => (p < P_FLOOR ? `p < ${P_FLOOR.toExponential(0)}` : `p = ${p.toPrecision(2)}`);
