/**
 * The landing rule for a ranking method, fixed before any method was
 * measured (docs/RETRIEVAL.md): a method turned on lands when, against the
 * default,
 *   1. the mean of the two sets' changes in mean NDCG@10 (the semble dev
 *      set, a mean over its repositories, and the generated set, likewise)
 *      is above zero;
 *   2. no language of either set loses more than 0.01 NDCG@10;
 *   3. in at least 4 of the 5 repository folds of the dev set
 *      (`assignFolds`, k = 5) the fold's mean NDCG@10 does not drop.
 * Pure functions, no I/O.
 */
import { mean } from "./metrics.ts";
import { assignFolds } from "./cross_validate.ts";

/** One repository under the default and under the method. */
export interface RepoPair {
  set: "dev" | "generated";
  repo: string;
  language: string;
  base: number;
  method: number;
}

/** Most a language may lose. */
export const MAX_LANGUAGE_DROP = 0.01;
/** Folds of the dev set, and how many must hold. */
export const RULE_FOLDS = 5;
export const FOLDS_TO_HOLD = 4;

/** The rule's figures for one method and whether it lands. */
export interface Verdict {
  dev: { base: number; method: number };
  generated: { base: number; method: number };
  /** Mean of the two sets' changes. */
  delta: number;
  /** Per set and language: the change of the language's mean over its repositories. */
  languages: { set: string; language: string; repos: number; delta: number }[];
  worstLanguage: { set: string; language: string; delta: number } | null;
  foldDeltas: number[];
  foldsHeld: number;
  lands: boolean;
  reasons: string[];
}

const EPS = 1e-9;

/** Judges a method from its per-repository pairs (dev and generated). */
export function judge(pairs: RepoPair[]): Verdict {
  const of = (set: string) => pairs.filter((p) => p.set === set);
  const means = (xs: RepoPair[]) => ({ base: mean(xs.map((x) => x.base)), method: mean(xs.map((x) => x.method)) });
  const dev = means(of("dev"));
  const generated = means(of("generated"));
  const present = [dev, generated].filter((_, i) => of(i ? "generated" : "dev").length);
  const delta = mean(present.map((s) => s.method - s.base));
  const langs = new Map<string, RepoPair[]>();
  for (const p of pairs) langs.set(`${p.set}\t${p.language}`, [...(langs.get(`${p.set}\t${p.language}`) ?? []), p]);
  const languages = [...langs].map(([k, xs]) => {
    const [set, language] = k.split("\t");
    const m = means(xs);
    return { set, language, repos: xs.length, delta: m.method - m.base };
  }).sort((a, b) => a.set.localeCompare(b.set) || a.language.localeCompare(b.language));
  const worst = languages.reduce<Verdict["worstLanguage"]>(
    (w, l) => (!w || l.delta < w.delta ? { set: l.set, language: l.language, delta: l.delta } : w),
    null,
  );
  const devPairs = of("dev");
  const byRepo = new Map(devPairs.map((p) => [p.repo, p]));
  const foldDeltas = devPairs.length >= RULE_FOLDS
    ? assignFolds(devPairs.map((p) => p.repo), RULE_FOLDS).map((f) => {
      const m = means(f.map((r) => byRepo.get(r)!));
      return m.method - m.base;
    })
    : [];
  const foldsHeld = foldDeltas.filter((d) => d >= -EPS).length;
  const reasons: string[] = [];
  if (!(delta > EPS)) reasons.push(`mean change ${delta.toFixed(4)} is not above 0`);
  if (worst && worst.delta < -MAX_LANGUAGE_DROP - EPS) {
    reasons.push(`${worst.set} ${worst.language} drops ${(-worst.delta).toFixed(3)}`);
  }
  if (foldsHeld < FOLDS_TO_HOLD) reasons.push(`holds in ${foldsHeld}/${foldDeltas.length} dev folds`);
  return {
    dev,
    generated,
    delta,
    languages,
    worstLanguage: worst,
    foldDeltas,
    foldsHeld,
    lands: reasons.length === 0,
    reasons,
  };
}
