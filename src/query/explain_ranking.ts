/**
 * explain_ranking: why one search_code result ranked where it did, in the
 * pipeline's own terms. The query is run again through the same pipeline
 * with full explanations (`ranking_explain_level: "full"`), and the named
 * result's record is laid out as: the sources that found it and their votes
 * (weighted reciprocal-rank fusion), each bounded signal that multiplied the
 * fused score, the additions from overlapping hits and from its file, and
 * the final score, rank and the result it trails. Reads only the open index.
 */
import type { Db } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import { requireName } from "./_input_rules.ts";
import { MAX_LIMIT, searchCode, type SearchResult } from "./search_code.ts";

/** Inputs of explain_ranking (`language` and `path_prefix` as given to search_code). */
export interface ExplainRankingInput {
  query: string;
  result_id: string;
  language?: string;
  path_prefix?: string;
}

/** One contribution to a result's score. */
export interface Contribution {
  /** `source` (a candidate list's vote), `signal` (a multiplier), `aggregate` (an addition). */
  stage: "source" | "signal" | "aggregate";
  name: string;
  /** The source's vote, the signal's factor, or the aggregate's addition. */
  value: number;
  /** For a source: the rank (1-based) the result had in it. */
  rank?: number;
  /** The score change this step caused, in fused-score units. */
  effect: number;
}

/** The answer of explain_ranking (without the protocol metadata). */
export interface ExplainRankingResult {
  query: string;
  query_intent: string;
  result_id: string;
  rank: number;
  total_candidates: number;
  /** The 0..1 score shown by search_code. */
  score: number;
  fused: number;
  final: number;
  contributions: Contribution[];
  /** The result ranked just above (null for the first). */
  above: { result_id: string; rank: number; final: number; path: string; name: string | null } | null;
  summary: string;
}

const NON_SIGNAL = new Set(["fused", "final", "merged_overlap", "file_aggregate"]);

/** Explains the rank of `result_id` among search_code's results for `query` (`result_not_found` when absent). */
export function explainRanking(db: Db, input: ExplainRankingInput): ExplainRankingResult {
  const resultIdValue = requireName(input?.result_id, "result_id");
  requireName(input?.query, "query", 100_000);
  const r = searchCode(db, {
    query: input.query,
    language: input.language,
    path_prefix: input.path_prefix,
    limit: MAX_LIMIT,
    ranking_explain_level: "full",
  });
  const i = r.results.findIndex((x) => x.result_id === resultIdValue || x.symbol_id === resultIdValue);
  if (i < 0) {
    throw new CruxeError(
      "result_not_found",
      `${resultIdValue.slice(0, 100)} is not among the first ${r.results.length} results of this query`,
      {
        result_id: resultIdValue.slice(0, 100),
        results_examined: r.results.length,
        top: r.results.slice(0, 5).map(brief),
      },
    );
  }
  return explanation(input, r, i, contributionsOf(r.results[i].ranking_reasons ?? {}));
}

/**
 * What made up a result's score, from its `ranking_reasons`: each source's
 * fused share, each signal's multiplicative effect in order, then what merged
 * overlaps and the file's other hits added.
 */
function contributionsOf(reasons: Record<string, unknown>): Contribution[] {
  const num = (k: string) => Number(reasons[k] ?? 0);
  const contributions: Contribution[] = [];
  let running = 0;
  for (const [k, v] of Object.entries(reasons)) {
    if (!k.startsWith("source:")) continue;
    const name = k.slice(7);
    running += Number(v);
    contributions.push({
      stage: "source",
      name,
      value: Number(v),
      rank: num("rank:" + name) || undefined,
      effect: Number(v),
    });
  }
  for (const [k, v] of Object.entries(reasons)) {
    if (k.startsWith("source:") || k.startsWith("rank:") || NON_SIGNAL.has(k) || typeof v !== "number") continue;
    const before = running;
    running *= v;
    contributions.push({ stage: "signal", name: k, value: v, effect: round(running - before) });
  }
  // Overlapping hits merged into this one add a share of their score; the file's other hits add the aggregate.
  const fileAdd = num("file_aggregate");
  if (reasons.merged_overlap !== undefined) {
    const effect = round(num("final") - running - fileAdd);
    contributions.push({ stage: "aggregate", name: "merged_overlap", value: num("merged_overlap"), effect });
  }
  if (reasons.file_aggregate !== undefined) {
    contributions.push({ stage: "aggregate", name: "file_aggregate", value: fileAdd, effect: fileAdd });
  }
  return contributions;
}

/** The result's answer body: its rank, its score's contributions, the result above it and a one-line summary. */
function explanation(
  input: ExplainRankingInput,
  r: ReturnType<typeof searchCode>,
  i: number,
  contributions: Contribution[],
): ExplainRankingResult {
  const hit = r.results[i];
  const num = (k: string) => Number(hit.ranking_reasons?.[k] ?? 0);
  const above = i > 0 ? r.results[i - 1] : null;
  const top =
    contributions.filter((c) => c.stage !== "source").sort((a, b) => Math.abs(b.effect) - Math.abs(a.effect))[0];
  const sources = contributions.filter((c) => c.stage === "source").map((c) => `${c.name} (rank ${c.rank ?? "?"})`);
  return {
    query: input.query,
    query_intent: r.query_intent,
    result_id: hit.result_id,
    rank: i + 1,
    total_candidates: r.total_candidates,
    score: hit.score,
    fused: num("fused"),
    final: num("final"),
    contributions,
    above: above
      ? {
        result_id: above.result_id,
        rank: i,
        final: Number(above.ranking_reasons?.final ?? 0),
        path: above.path,
        name: above.name,
      }
      : null,
    summary: `Rank ${i + 1} of ${r.total_candidates}: found by ${sources.join(", ") || "no source"}` +
      (top ? `; largest adjustment ${top.name} (${top.stage === "signal" ? "×" : "+"}${top.value})` : "") +
      (above ? `; trails rank ${i} by ${round(Number(above.ranking_reasons?.final ?? 0) - num("final"))}` : "") +
      ".",
  };
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

function brief(x: SearchResult) {
  return { result_id: x.result_id, path: x.path, name: x.name };
}
