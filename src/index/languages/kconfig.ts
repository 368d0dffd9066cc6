/**
 * Kconfig (the Linux kernel's configuration language, also used by Zephyr,
 * U-Boot, Buildroot and others): each `config` and `menuconfig` entry is a
 * constant named as the file spells it (`SERIAL_CORE`), qualified as C, make
 * and `.config` files spell it (`CONFIG_SERIAL_CORE`); its type and prompt
 * are the signature and its help text the documentation. `source` lines are
 * imports (`rsource` ones relative to the file, as `./path`). A symbol
 * named in an expression (`depends on`, `select`, `imply`, `default`, `if`,
 * `range`) is a `use` reference; the values `y`, `m`, `n` and numbers are not.
 */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import { childOfType, unquote } from "./_common.ts";

const KCONFIG = languageIdentity("kconfig");

/** The entry's symbol (`config FOO` → `FOO`). */
function entryName(n: Node): string | null {
  return childOfType(n, ["name"])?.text.trim() || null;
}

/** `config FOO` followed by its type and prompt when it has them (`config FOO: bool "Foo support"`). */
function entrySignature(n: Node, source: string): string {
  const head = `${n.type} ${entryName(n) ?? ""}`;
  const type = childOfType(n, ["type_definition"]);
  return type ? `${head}: ${source.slice(type.startIndex, type.endIndex).split("\n")[0].trim()}` : head;
}

/** The help text of an entry (from the source itself), without the indentation its first line starts at. */
function helpText(n: Node, source: string): string | null {
  const text = childOfType(n, ["help_text"])?.namedChildren.find((c) => c?.type === "text");
  if (!text) return null;
  const [first, ...rest] = source.slice(text.startIndex, text.endIndex).replace(/\s+$/, "").split("\n");
  const indent = Math.min(...rest.filter((l) => l.trim()).map((l) => l.match(/^\s*/)![0].length));
  return [first, ...rest.map((l) => l.slice(indent))].join("\n");
}

/** Kconfig's tristate and boolean values, which the grammar reads as symbols. */
const VALUES = new Set(["y", "m", "n"]);

/** Entries whose `name` child defines the symbol in it (`select FOO` wraps its `FOO` in a `name` too). */
const DEFINING = new Set(["config", "menuconfig", "choice"]);

/** A symbol in an expression that names an entry: not the defining name, a value or a number. */
function isUse(n: Node): boolean {
  if (n.parent?.type === "name" && DEFINING.has(n.parent.parent?.type ?? "")) return false;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(n.text) && !VALUES.has(n.text);
}

const entry = { kind: "constant" as const, name: entryName, signature: entrySignature, endsAtText: true };

/**
 * The source as the grammar reads it, at the same length (signatures are cut from the source itself): each line
 * of white space only made of spaces, since the grammar's help text runs on over a line such as a tab and two
 * spaces, taking the next entry with it; and a `$` that starts no `$(macro)` blanked, since the grammar takes
 * any `$` for one (`bool "Support VIPT Aliasing D$"` broke the rest of its file).
 */
function grammarText(source: string): string {
  return source.replace(/^[ \t]+$/gm, (m) => " ".repeat(m.length)).replace(/\$(?!\()/g, " ");
}

export const kconfig: LanguageSpec = {
  ...KCONFIG,
  rulesVersion: 3,
  parseText: grammarText,
  separator: "",
  module: () => KCONFIG.usePrefix ?? null,
  commentTypes: ["comment"],
  doc: (n, source) => n.type === "config" || n.type === "menuconfig" ? helpText(n, source) : null,
  defs: {
    config: entry,
    menuconfig: entry,
  },
  uses: { symbol: isUse },
  imports: {
    // `source` and `osource` name a path from the top of the tree, `rsource` and `orsource` one beside the file.
    source: (n) => {
      const path = childOfType(n, ["string"]);
      if (!path) return [];
      const relative = /^o?rsource$/.test(n.firstChild?.type ?? "");
      return [(relative ? "./" : "") + unquote(path.text)];
    },
  },
};
