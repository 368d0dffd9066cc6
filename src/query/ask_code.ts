/**
 * ask_code: retrieve evidence for a question over a scope,
 * re-read every evidence window from disk through `openFile` (so the model
 * sees what is on disk now, under the same path rules), and — only when an
 * endpoint is configured and `grounded` is not set — ask a language model to
 * answer from that evidence alone, citing it as `[E1]`, `[E2]`, ...
 *
 * Never an invented answer: without a model (or with `grounded: true`) the
 * `answer` says plainly that no model was asked; with no evidence the model
 * is not called at all; when the model fails the error is `llm_unavailable`
 * and its `data` still carries the evidence.
 *
 * Requires `--allow-read` on the repositories and the Cruxe home, and
 * `--allow-net` on the LLM endpoint's host when one is configured.
 */
import { CruxeError } from "../core/errors.ts";
import type { ResultCompleteness } from "../core/metadata.ts";
import { chat, type ChatMessage, type LlmConfig, llmConfigured, MAX_ANSWER_BYTES } from "./llm_client.ts";
import {
  checkPathPrefix,
  type EffectiveScope,
  type ResolvedScope,
  type ScopeDeps,
  type ScopedHit,
  type SearchFn,
  searchScope,
} from "./multi_repo.ts";
import { checkRegisteredRoot, openFile } from "./open_file.ts";
import { searchOneRepo } from "./search_code.ts";

/** Default and largest `topK`. */
export const DEFAULT_TOP_K = 5;
export const MAX_TOP_K = 20;
/** Byte cap of one evidence snippet, and of all evidence sent to a model. */
export const EVIDENCE_MAX_BYTES = 6000;
export const PROMPT_EVIDENCE_BUDGET = 48 * 1024;

/** Inputs of ask_code (scope is resolved by the caller). */
export interface AskInput {
  query: string;
  topK?: number;
  minScore?: number;
  language?: string;
  pathPrefix?: string;
  grounded?: boolean;
}

/** One piece of evidence, re-read from disk. */
export interface Evidence {
  id: string;
  repo: string;
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  snippet: string;
}

/** A citation found in the model's answer, mapped back to its evidence. */
export interface Citation {
  id: string;
  evidence: number;
  repo: string;
  path: string;
  startLine: number;
  endLine: number;
}

/** ask_code's meta block. */
export interface AskMeta {
  scope: EffectiveScope;
  topK: number;
  minScore: number;
  pathPrefix: string | null;
  llmModel: string | null;
  modelAsked: boolean;
  totalMatches: number;
  contextsUsed: number;
  evidencesDropped: number;
  invalidCitations: string[];
  /** True when the model's answer was longer than MAX_ANSWER_BYTES and was cut (result_completeness `truncated`). */
  answerTruncated: boolean;
  elapsedMs: number;
  /** `partial` when a repository of the scope is still indexing or has no usable index. */
  result_completeness: ResultCompleteness;
}

/** ask_code's answer. */
export interface AskResult {
  answer: string;
  evidences: Evidence[];
  citations: Citation[];
  meta: AskMeta;
}

/** What ask_code needs from the server. */
export interface AskDeps extends ScopeDeps {
  /** The per-repository search (default: the lexical `searchOneRepo`). */
  search?: SearchFn;
  llm: LlmConfig | null;
}

const SYSTEM_PROMPT = [
  "You answer questions about source code using ONLY the evidence excerpts in the user's message.",
  "Each excerpt is labelled [E1], [E2], ... with its repository, file and lines.",
  "Cite the label of every excerpt you rely on, in square brackets, for example [E2].",
  "If the evidence does not answer the question, say that the evidence is insufficient.",
  "Do not use outside knowledge and do not invent files, symbols or behaviour.",
].join("\n");

/** The chat messages for a question and its evidence: the question and the evidence, nothing else. */
export function buildPrompt(query: string, evidences: Evidence[]): ChatMessage[] {
  const blocks = evidences.map((e) =>
    `[${e.id}] ${e.repo}:${e.path} lines ${e.startLine}-${e.endLine}\n\`\`\`\n${e.snippet}${
      e.snippet.endsWith("\n") ? "" : "\n"
    }\`\`\``
  );
  return [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: `Question: ${query}\n\nEvidence:\n\n${blocks.join("\n\n")}` },
  ];
}

/** Citations `[E3]` (also `[E1, E2]`) in an answer, mapped to evidences; unknown labels are returned apart. */
export function extractCitations(answer: string, evidences: Evidence[]): { citations: Citation[]; invalid: string[] } {
  const seen = new Set<string>();
  const citations: Citation[] = [];
  const invalid: string[] = [];
  for (const m of answer.matchAll(/\[([^\]]*)\]/g)) {
    for (const label of m[1].match(/\bE\d+\b/g) ?? []) {
      if (seen.has(label)) continue;
      seen.add(label);
      const i = evidences.findIndex((e) => e.id === label);
      if (i < 0) invalid.push(label);
      else {
        const e = evidences[i];
        citations.push({
          id: label,
          evidence: i,
          repo: e.repo,
          path: e.path,
          startLine: e.startLine,
          endLine: e.endLine,
        });
      }
    }
  }
  return { citations, invalid };
}

function numberIn(v: unknown, name: string, lo: number, hi: number, dflt: number): number {
  if (v === undefined || v === null) return dflt;
  if (typeof v !== "number" || !Number.isFinite(v) || v < lo || v > hi) {
    throw new CruxeError("invalid_input", `${name} must be a number between ${lo} and ${hi}`, { [name]: v });
  }
  return v;
}

/**
 * Evidence windows for the hits at or above `minScore`, re-read from disk
 * through `openFile` within PROMPT_EVIDENCE_BUDGET bytes. A hit whose
 * repository root is no longer a registered directory, or whose window is
 * gone, empty or refused now, is dropped (and counted).
 */
function gatherEvidence(
  hits: ScopedHit[],
  resolved: ResolvedScope,
  minScore: number,
): { evidences: Evidence[]; dropped: number } {
  const byRoot = new Map(resolved.targets.map((t) => [t.name, t.project.repo_root]));
  const rootOk = new Map<string, boolean>();
  const evidences: Evidence[] = [];
  let dropped = 0;
  let budget = PROMPT_EVIDENCE_BUDGET;
  for (const hit of hits) {
    if (hit.score < minScore) continue;
    const root = byRoot.get(hit.repo);
    if (!root) continue;
    if (!rootOk.has(root)) {
      try {
        checkRegisteredRoot(root);
        rootOk.set(root, true);
      } catch {
        rootOk.set(root, false);
      }
    }
    if (!rootOk.get(root)) {
      dropped++;
      continue;
    }
    try {
      const w = openFile(root, {
        path: hit.path,
        startLine: Math.max(1, hit.line_start),
        endLine: Math.max(1, hit.line_end, hit.line_start),
        maxBytes: Math.min(EVIDENCE_MAX_BYTES, budget),
      });
      if (!w.content.trim()) {
        dropped++;
        continue;
      }
      evidences.push({
        id: `E${evidences.length + 1}`,
        repo: hit.repo,
        path: w.path,
        startLine: w.startLine,
        endLine: w.endLine,
        score: hit.score,
        snippet: w.content,
      });
      budget -= new TextEncoder().encode(w.content).length;
      if (budget <= 0) break;
    } catch {
      // The file moved, shrank, turned binary or now escapes its root since it was indexed: not evidence any more.
      dropped++;
    }
  }

  return { evidences, dropped };
}

/**
 * Answers `input.query` over `resolved` (see the module comment). Throws
 * `invalid_input` for bad arguments and `llm_unavailable` (with
 * `data.evidences` and `data.meta`) when the model cannot answer.
 */
export async function askCode(deps: AskDeps, resolved: ResolvedScope, input: AskInput): Promise<AskResult> {
  const t0 = performance.now();
  if (typeof input.query !== "string" || !input.query.trim()) {
    throw new CruxeError("invalid_input", "query must not be empty");
  }
  const query = input.query.trim();
  const topK = Math.floor(numberIn(input.topK, "topK", 1, MAX_TOP_K, DEFAULT_TOP_K));
  const minScore = numberIn(input.minScore, "minScore", -1e9, 1e9, 0);
  const pathPrefix = checkPathPrefix(input.pathPrefix);

  const found = await searchScope(
    deps,
    resolved,
    { query, topK, language: input.language, pathPrefix },
    deps.search ?? searchOneRepo,
  );
  const { evidences, dropped } = gatherEvidence(found.results, resolved, minScore);

  const meta: AskMeta = {
    scope: resolved.scope,
    topK,
    minScore,
    pathPrefix: pathPrefix ?? null,
    llmModel: null,
    modelAsked: false,
    totalMatches: found.total_candidates,
    contextsUsed: evidences.length,
    evidencesDropped: dropped,
    invalidCitations: [],
    answerTruncated: false,
    elapsedMs: 0,
    result_completeness: found.result_completeness,
  };
  const done = (answer: string, citations: Citation[] = []): AskResult => {
    meta.elapsedMs = Math.round(performance.now() - t0);
    return { answer, evidences, citations, meta };
  };
  const where = resolved.scope.repos.join(", ") || "(no repositories)";

  if (!evidences.length) {
    return done(
      `No evidence was found for this question in ${where}${
        minScore > 0 ? ` at minScore ${minScore}` : ""
      }, so no model was asked and there is no answer.`,
    );
  }
  if (input.grounded || !llmConfigured(deps.llm)) {
    const why = input.grounded
      ? "grounded: true was requested"
      : "no LLM endpoint is configured (set llm.url or CRUXE_LLM_URL)";
    return done(
      `No language model was asked (${why}). These ${evidences.length} evidence excerpt(s) from ${where} best match the question; read them to answer it.`,
    );
  }

  meta.modelAsked = true;
  meta.llmModel = deps.llm.model;
  let reply;
  try {
    reply = await chat(deps.llm, buildPrompt(query, evidences));
  } catch (e) {
    meta.elapsedMs = Math.round(performance.now() - t0);
    const err = e instanceof CruxeError ? e : new CruxeError("llm_unavailable", (e as Error).message);
    throw new CruxeError("llm_unavailable", err.message, { ...err.data, evidences, meta });
  }
  meta.llmModel = reply.model ?? deps.llm.model;
  const { citations, invalid } = extractCitations(reply.content, evidences);
  meta.invalidCitations = invalid;
  if (!reply.truncated) return done(reply.content, citations);
  meta.answerTruncated = true;
  if (meta.result_completeness === "complete") meta.result_completeness = "truncated";
  return done(
    `${reply.content}\n\n[Answer truncated: the model sent more than ${MAX_ANSWER_BYTES} bytes; the rest was dropped.]`,
    citations,
  );
}
