/**
 * Token estimates for budgets. Stated to clients as `token_estimator`:
 * ceil(characters / 4) of the text, plus a fixed allowance per returned item
 * for its JSON fields. No tokenizer is bundled; chars/4 is the usual
 * approximation and errs low on dense punctuation, so budgets keep a margin.
 */

/** The name clients see for this estimator. */
export const TOKEN_ESTIMATOR = "ceil(chars/4) + 16 per item";

/** Tokens of one item's fields other than its text. */
export const ITEM_OVERHEAD_TOKENS = 16;

/** Estimated tokens of `text`. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
