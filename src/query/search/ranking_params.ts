/**
 * The tunable numbers of search_code's ranking in one object: the fusion
 * damping, the weights of the prose sources and the strength of a few
 * signals. `DEFAULT_RANKING` is what every caller gets; an evaluation may
 * pass another object to compare values (never per repository or per query).
 * Pure data, no I/O.
 */

/** Weights of the sources a natural-language query fuses. */
export interface ProseWeights {
  chunks: number;
  file_evidence: number;
  symbols: number;
  files: number;
  exact_name: number;
  identifier_text: number;
  phrase: number;
}

/** Ranking parameters of search_code. */
export interface RankingParams {
  /** RRF damping constant: small k lets the first ranks of a source dominate. */
  rrfK: number;
  prose: ProseWeights;
  /** Multiplier for results in test paths when the query does not mention tests. */
  testPenalty: number;
  /** Largest boost for a file name the query spells out (1 + this × coverage). */
  pathAffinity: number;
  /** Largest boost for query words among the directory names of a path (1 + this × share of the words). */
  dirAffinity: number;
  /** Share of a file's second-best unit added to its best one (the third gets half of it). */
  fileAggregate: number;
  /** Weight of the semantic (nearest chunk vectors) list, when the optional semantic layer answers. */
  semantic: number;
  /**
   * For prose queries, a boost for files that define many symbols (the central
   * implementation rather than a small interface or helper): up to 1 + this,
   * reached at about 300 symbols on a log scale. 0 turns it off.
   */
  fileSizePrior: number;
  /**
   * For prose queries, multiplier for a C-family header (`ae.h`) when a
   * source file of the same name (`ae.c`) is also a candidate: a question
   * about how something works is answered by the implementation. 1 turns it off.
   */
  headerWithSource: number;
  /**
   * For prose queries, a boost for files whose candidate passages between
   * them hold many of the query's words: up to 1 + this when every content
   * word occurs somewhere in the file's matching passages. 0 turns it off.
   */
  fileCoverage: number;
  /**
   * For prose queries, a penalty per directory level of a path (divided by
   * 1 + this × depth): the files near the top of a tree tend to be the ones
   * a question about a part means. 0 turns it off.
   */
  depthPenalty: number;
  /**
   * For prose queries, a boost (1 + this) for a module's own file when
   * candidates also come from the directory of its name (`socket.ex` beside
   * `socket/transport.ex`): the file that names a part introduces it. 0 turns it off.
   */
  moduleEntry: number;
  /**
   * For prose queries, the weight of a second chunk list searched with the
   * query's words plus the words that best separate its first results from
   * the repository (pseudo-relevance feedback, `prf.ts`). 0 turns it off.
   */
  prf: number;
  /**
   * For prose queries, how much a file's role lowers its results, the same
   * for every language (`file_role.ts`): scripts, tools, fixtures, mocks and
   * benchmarks, generated-looking names, and files that define no symbol get
   * 1 − this (a role the query names is never lowered). 0 turns it off.
   */
  rolePrior: number;
  /**
   * For prose queries, the weight of a list of symbols whose name alone
   * (not the qualified name or signature) holds the query's words: the
   * identifier field weighted apart from the others. 0 turns it off.
   */
  nameField: number;
  /**
   * For prose queries, the weight of a chunk list searched with the query's
   * words plus the identifier parts the repository's comments associate
   * with them (`associations.ts`). 0 turns it off.
   */
  associations: number;
  /**
   * For prose queries, how much the query's words covering a definition's
   * name count when choosing which unit shows a file (`representative.ts`):
   * only the lines shown change, not the order of files. 0 turns it off.
   * On by the landing rule (docs/RETRIEVAL.md).
   */
  repName: number;
  /** With `repName`, a name word counts by its rarity in the index (`get`, `map` count little). */
  repNameRarity: boolean;
}

/** The ranking every caller gets. */
export const DEFAULT_RANKING: Readonly<RankingParams> = Object.freeze({
  rrfK: 10,
  prose: Object.freeze({
    chunks: 1.5,
    file_evidence: 2,
    symbols: 1,
    files: 1,
    exact_name: 1.5,
    identifier_text: 1,
    phrase: 0.75,
  }),
  testPenalty: 0.4,
  pathAffinity: 0.9,
  dirAffinity: 0.2,
  fileAggregate: 0.3,
  semantic: 1,
  fileSizePrior: 0,
  headerWithSource: 1,
  fileCoverage: 0,
  depthPenalty: 0.15,
  moduleEntry: 0,
  prf: 0,
  rolePrior: 0,
  nameField: 0,
  associations: 0,
  repName: 1,
  repNameRarity: true,
});

/** `base` with the given fields replaced (`prose` merged field by field). */
export function withRanking(
  base: Readonly<RankingParams>,
  change: Partial<Omit<RankingParams, "prose">> & { prose?: Partial<ProseWeights> },
): RankingParams {
  return { ...base, ...change, prose: { ...base.prose, ...change.prose } };
}
