/**
 * The result counts of the query tools that take `limit`: the default and the
 * largest value, one pair per tool. The tools clamp to `max`; the CLI's
 * `--limit` shows and checks the same numbers. Defaults keep one answer near
 * 8 KB or less; a cursor or a larger limit gets more. A module of numbers only, so
 * the command table reads them without loading the queries.
 */
export const LIMITS = {
  search: { default: 10, max: 100 },
  locate: { default: 10, max: 200 },
  related: { default: 20, max: 200 },
  refs: { default: 20, max: 500 },
} as const;
