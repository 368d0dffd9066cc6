/**
 * Fitting a ranked list into a token budget: items are taken in rank order,
 * each in the largest form that fits both the room left and a per-item cap
 * (so one huge change does not crowd out the rest); an item with no form
 * that fits is left out and later, smaller items still get their turn.
 * Pure: costs come from the caller's estimator.
 */

/** One item in the form chosen for it, with its cost and whether that form is cut. */
export interface Fitted<T> {
  item: T;
  cost: number;
  cut: boolean;
}

/** What `fitInOrder` kept and what it had to cut or leave out. */
export interface FitResult<T> {
  taken: Fitted<T>[];
  /** Items left out entirely. */
  omitted: number;
  /** Items kept in a cut form. */
  cut: number;
  used: number;
}

/**
 * Takes `items` in order within `budget`: `form(item, cap)` returns the item
 * in its largest form costing at most `cap` (or null), where `cap` is the
 * smaller of the room left and `perItemCap`.
 */
export function fitInOrder<T>(
  items: readonly T[],
  budget: number,
  perItemCap: number,
  form: (item: T, cap: number) => Fitted<T> | null,
): FitResult<T> {
  const taken: Fitted<T>[] = [];
  let used = 0, omitted = 0, cut = 0;
  for (const it of items) {
    const cap = Math.min(budget - used, perItemCap);
    const f = cap > 0 ? form(it, cap) : null;
    if (!f || f.cost > cap) {
      omitted++;
      continue;
    }
    taken.push(f);
    used += f.cost;
    if (f.cut) cut++;
  }
  return { taken, omitted, cut, used };
}

/**
 * The longest head of `lines` (at least `minLines`) whose cost, as measured
 * by `costWith(kept)`, is at most `cap`; null when not even `minLines` fit.
 * Binary search: `costWith` must grow with the number of lines kept.
 */
export function longestFittingHead(
  lines: readonly string[],
  cap: number,
  costWith: (kept: readonly string[]) => number,
  minLines = 3,
): string[] | null {
  let lo = Math.min(minLines, lines.length), hi = lines.length;
  if (costWith(lines.slice(0, lo)) > cap) return null;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (costWith(lines.slice(0, mid)) <= cap) lo = mid;
    else hi = mid - 1;
  }
  return lines.slice(0, lo);
}
