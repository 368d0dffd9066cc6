/**
 * The ranking methods the landing rule judges (`rule.ts`), each a named
 * change of the default ranking that turns one method on. Pure data.
 */
import { DEFAULT_RANKING, type RankingParams, withRanking } from "../../src/query/search/ranking_params.ts";

const METHODS: Record<string, Parameters<typeof withRanking>[1]> = {
  "prf=0.5": { prf: 0.5 },
  "prf=1": { prf: 1 },
  "rolePrior=0.3": { rolePrior: 0.3 },
  "nameField=0.75": { nameField: 0.75 },
  "nameField=1.5": { nameField: 1.5 },
  "associations=0.5": { associations: 0.5 },
  "associations=1": { associations: 1 },
  "repName=0.25": { repName: 0.25 },
  "repName=0.5": { repName: 0.5 },
  "repName=1": { repName: 1 },
  "repName=3": { repName: 3 },
  "repName=1+rarity": { repName: 1, repNameRarity: true },
  "repName=2+rarity": { repName: 2, repNameRarity: true },
};

/** The names `--methods` accepts. */
export function methodNames(): string[] {
  return Object.keys(METHODS);
}

/** The ranking with method `name` on; an unknown name is an error naming the known ones. */
export function methodCandidate(name: string): RankingParams {
  const change = METHODS[name];
  if (!change) throw new Error(`unknown method ${name} (known: ${methodNames().join(", ")})`);
  return withRanking(DEFAULT_RANKING, change);
}
