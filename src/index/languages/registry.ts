/** The language registry: which spec handles a file (extension, special name, shebang). */
import type { LanguageSpec } from "../extract/spec.ts";
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
];

const byExt = new Map<string, LanguageSpec>();
const byName = new Map<string, LanguageSpec>();
const byShebang = new Map<string, LanguageSpec>();
const byId = new Map<string, LanguageSpec>();
for (const l of LANGUAGES) {
  byId.set(l.id, l);
  for (const e of l.extensions) byExt.set(e, l);
  for (const f of l.filenames ?? []) byName.set(f, l);
  for (const s of l.shebangs ?? []) byShebang.set(s, l);
}

/** Language ids, in registry order. */
export function languageIds(): string[] {
  return LANGUAGES.map((l) => l.id);
}

/** The spec for a language id. */
export function languageById(id: string): LanguageSpec | undefined {
  return byId.get(id.toLowerCase());
}

/** Language from a path alone (extension or special file name). */
export function languageForPath(path: string): LanguageSpec | undefined {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const named = byName.get(base);
  if (named) return named;
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return undefined;
  return byExt.get(base.slice(dot).toLowerCase());
}

/** Language from a `#!` first line (`#!/usr/bin/env python3`). */
export function languageForShebang(firstLine: string): LanguageSpec | undefined {
  const m = firstLine.match(/^#!\s*(\S+)(?:\s+(\S+))?/);
  if (!m) return undefined;
  let prog = m[1].split("/").pop()!;
  if (prog === "env" && m[2]) prog = m[2];
  prog = prog.replace(/[0-9.]+$/, "");
  return byShebang.get(prog) ?? byShebang.get(m[1].split("/").pop()!);
}
