/**
 * Token estimates for budgets. Stated to clients as `token_estimator`:
 * ceil(characters / 4) of each returned item as JSON (fields, escapes and
 * all), with the answer's other fields and the protocol metadata reserved
 * from the budget first, so the whole answer an agent reads stays within it.
 * No tokenizer is bundled; chars/4 is the usual approximation and errs low
 * on dense punctuation, so budgets keep a margin.
 */

/** The name clients see for this estimator. */
export const TOKEN_ESTIMATOR = "chars/4 of the whole answer's JSON";

/** Tokens reserved for the protocol metadata block every answer carries. */
export const METADATA_TOKENS = 48;

/** Estimated tokens of `text`. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Estimated tokens of a value as it is sent (its JSON), plus `extra` for fields added after. */
export function jsonTokens(value: unknown, extra = 0): number {
  return estimateTokens(JSON.stringify(value)) + extra;
}
