/** Bash and other POSIX-ish shells: functions, top-level variables, sourced files, commands run. */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import type { SymbolKind } from "../../core/types.ts";

function assignmentKind(n: Node): SymbolKind | null {
  let p = n.parent;
  let readonly = false;
  if (p?.type === "declaration_command") {
    readonly = /^(readonly|declare\s+-[a-zA-Z]*r)/.test(p.text);
    p = p.parent;
  }
  if (p?.type !== "program") return null;
  return readonly ? "constant" : "variable";
}

function commandName(n: Node): string | null {
  return n.childForFieldName("name")?.text ?? null;
}

export const bash: LanguageSpec = {
  ...languageIdentity("bash"),
  separator: ".",
  commentTypes: ["comment"],
  defs: {
    function_definition: { kind: "function" },
    variable_assignment: {
      kind: assignmentKind,
      outer: (n) => n.parent?.type === "declaration_command" ? n.parent : n,
      signature: (n) => (n.parent?.type === "declaration_command" ? n.parent.text : n.text).split("\n")[0],
    },
  },
  calls: {
    command: (n) => {
      const name = commandName(n);
      return name && name !== "source" && name !== "." && /^[\w:.-]+$/.test(name) ? name : null;
    },
  },
  imports: {
    command: (n) => {
      const name = commandName(n);
      if (name !== "source" && name !== ".") return [];
      const arg = n.childForFieldName("argument");
      return arg ? [arg.text.replace(/^["']|["']$/g, "")] : [];
    },
  },
};
