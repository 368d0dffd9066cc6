/**
 * PowerShell: functions, classes (members joined with `.`), enums, dot-sourced
 * scripts and imported modules.
 */
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "../extract/spec.ts";
import { languageIdentity } from "../../core/languages.ts";
import { childOfType } from "./_common.ts";

const simpleName = (n: Node) => childOfType(n, ["simple_name"])?.text ?? null;

/** `Get-Token` from a command, or the script path of `. ./lib.ps1`. */
function commandTarget(n: Node): { name: string | null; dotSourced: boolean } {
  const name = n.childForFieldName("command_name");
  const dot = childOfType(n, ["command_invokation_operator"]);
  // `. ./lib.ps1` or `. "$PSScriptRoot/lib.ps1"`: the name is a path or a string.
  const text = name?.type === "command_name_expr" ? name.firstNamedChild?.text.replace(/^["']|["']$/g, "") : name?.text;
  return { name: text ?? null, dotSourced: !!dot && dot.text === "." };
}

function commandArgs(n: Node): string[] {
  const els = n.childForFieldName("command_elements");
  return (els?.namedChildren ?? []).filter((c) => c?.type === "generic_token").map((c) => c!.text);
}

export const powershell: LanguageSpec = {
  ...languageIdentity("powershell"),
  separator: ".",
  commentTypes: ["comment"],
  defs: {
    function_statement: {
      kind: "function",
      name: (n) => childOfType(n, ["function_name"])?.text ?? null,
      signature: (n, source) => {
        const body = childOfType(n, ["script_block"]);
        return source.slice(n.startIndex, body ? body.startIndex : n.endIndex).replace(/[{\s]+$/, "");
      },
    },
    class_statement: {
      kind: "class",
      name: simpleName,
      signature: (n) => n.text.split("{")[0],
      heritage: (n) => {
        const names = n.namedChildren.filter((c) => c?.type === "simple_name").slice(1).map((c) => c!.text);
        return { extends: names.slice(0, 1), implements: names.slice(1) };
      },
    },
    class_method_definition: {
      kind: (n, ctx) => simpleName(n) === ctx.parentName ? "constructor" : "method",
      name: simpleName,
      signature: (n) => n.text.split("{")[0],
    },
    class_property_definition: {
      kind: "property",
      name: (n) => childOfType(n, ["variable"])?.text.replace(/^\$/, "") ?? null,
      signature: (n) => n.text,
    },
    enum_statement: { kind: "enum", name: simpleName, signature: (n) => n.text.split("{")[0] },
    enum_member: { kind: "enum_member", name: simpleName, signature: (n) => n.text },
  },
  calls: {
    // `$store.Contains($t)`, `[guid]::NewGuid()`
    invokation_expression: (n) => childOfType(n, ["member_name"])?.text ?? null,
    command: (n) => {
      const { name, dotSourced } = commandTarget(n);
      return name && !dotSourced && name !== "Import-Module" && name !== "using" ? name : null;
    },
  },
  imports: {
    command: (n) => {
      const { name, dotSourced } = commandTarget(n);
      if (dotSourced && name) return [name];
      if (name === "Import-Module") return commandArgs(n).slice(0, 1);
      if (name === "using") {
        const [what, target] = commandArgs(n);
        return what === "module" || what === "namespace" ? [target ?? ""] : [];
      }
      return [];
    },
  },
};
