/** The parts of a references-accuracy report every oracle prints alike: ratios, label precision, sample misses. */

/** `a / b` to three places (1 when there is nothing to divide). */
export const ratio = (a: number, b: number): string => (b ? a / b : 1).toFixed(3);

/** How often the answers carrying each resolution label were right. */
export type LabelTally = Map<string, { right: number; wrong: number }>;

/** Prints each label's precision, then up to `show` sites the oracle disagrees with and `show` it found alone. */
export function printLabelsAndSamples(labels: LabelTally, disagreed: string[], missed: string[], show: number): void {
  console.log(
    "  labels: " +
      [...labels].sort().map(([k, l]) => `${k} precision ${ratio(l.right, l.right + l.wrong)} (${l.right + l.wrong})`)
        .join(", "),
  );
  for (const d of disagreed.slice(0, show)) console.log("  disagrees " + d);
  for (const m of missed.slice(0, show)) console.log("  missed " + m);
}
