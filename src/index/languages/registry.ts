/**
 * The extraction specs of every parsed language, looked up by the identity
 * facts of `src/core/languages.ts` (which file selects which language).
 */
import type { LanguageSpec } from "../extract/spec.ts";
import { languageIdForPath, languageIdForShebang } from "../../core/languages.ts";
import { go } from "./go.ts";
import { python } from "./python.ts";
import { javascript, tsx, typescript } from "./typescript.ts";
import { rust } from "./rust.ts";
import { java } from "./java.ts";
import { c, cpp } from "./c_family.ts";
import { csharp } from "./csharp.ts";
import { ruby } from "./ruby.ts";
import { php } from "./php.ts";
import { bash } from "./bash.ts";
import { scala } from "./scala.ts";
import { elixir } from "./elixir.ts";
import { haskell } from "./haskell.ts";
import { powershell } from "./powershell.ts";
import { kconfig } from "./kconfig.ts";

/** Every language Cruxe indexes. */
export const LANGUAGES: LanguageSpec[] = [
  go,
  python,
  typescript,
  tsx,
  javascript,
  rust,
  java,
  c,
  cpp,
  csharp,
  ruby,
  php,
  bash,
  scala,
  elixir,
  haskell,
  powershell,
  kconfig,
];

const byId = new Map<string, LanguageSpec>(LANGUAGES.map((l) => [l.id, l]));

/** The version of every language's extraction rules (`LanguageSpec.rulesVersion`), by language id. */
export function rulesVersions(): Record<string, number> {
  return Object.fromEntries(LANGUAGES.map((l) => [l.id, l.rulesVersion ?? 1]));
}

/**
 * The languages whose rules are not the ones `recorded` (what a store was
 * built with; a language it does not name was built with version 1).
 */
export function languagesWithNewRules(recorded: Record<string, unknown>): Set<string> {
  return new Set(LANGUAGES.filter((l) => (l.rulesVersion ?? 1) !== (recorded[l.id] ?? 1)).map((l) => l.id));
}

/** The spec for a language id. */
export function languageById(id: string): LanguageSpec | undefined {
  return byId.get(id.toLowerCase());
}

/** Language spec from a path alone (extension or special file name; see `languageIdForPath`). */
export function languageForPath(path: string): LanguageSpec | undefined {
  const id = languageIdForPath(path);
  return id === undefined ? undefined : byId.get(id);
}

/** Language spec from a `#!` first line (`#!/usr/bin/env python3`). */
export function languageForShebang(firstLine: string): LanguageSpec | undefined {
  const id = languageIdForShebang(firstLine);
  return id === undefined ? undefined : byId.get(id);
}
