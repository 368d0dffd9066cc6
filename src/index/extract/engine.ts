/**
 * Runs a language spec over a syntax tree and produces symbols and
 * references. Pure: no I/O, no parser state.
 */
import type { Language, Node, Tree } from "web-tree-sitter";
import type { ExtractedRef, ExtractedSymbol, FileExtraction, SymbolKind } from "../../core/types.ts";
import type { CallRule, DefRule, LanguageSpec, RuleContext } from "./spec.ts";
import { extractOccurrences, occurrenceNodeTypes } from "./occurrences.ts";

const CONTAINER_KINDS = new Set<SymbolKind>([
  "class",
  "struct",
  "interface",
  "trait",
  "enum",
  "impl",
  "module",
  "namespace",
]);

const MAX_SIGNATURE = 300;
const MAX_DOC = 600;

/** Collapses a declaration head into one line (whitespace runs become one space; long heads are cut). */
export function oneLine(text: string): string {
  const s = text.replace(/\s+/g, " ").trim();
  return s.length > MAX_SIGNATURE ? s.slice(0, MAX_SIGNATURE) + "…" : s;
}

/** The declaration text without its body. */
function signatureOf(node: Node, rule: DefRule, source: string): string {
  if (rule.signature) {
    const custom = rule.signature(node, source);
    if (custom !== null) return oneLine(custom);
  }
  const body = node.childForFieldName(rule.body ?? "body");
  if (body && body.startIndex > node.startIndex) {
    return oneLine(source.slice(node.startIndex, body.startIndex).replace(/[{:=\s]+$/, ""));
  }
  const text = source.slice(node.startIndex, Math.min(node.endIndex, node.startIndex + 400));
  const firstLines = text.split("\n").slice(0, 3).join("\n");
  return oneLine(firstLines.replace(/\{[\s\S]*$/, ""));
}

function cleanComment(text: string): string {
  return text.split("\n").map((l) =>
    l.replace(/^\s*(\/\/\/?|\/\*\*?|\*\/|\*|#|--\s*[|^]?|;+)\s?/, "").replace(/\*\/\s*$/, "")
  )
    .join("\n").trim();
}

/**
 * Documentation of a definition: the language's own hook, a docstring in the
 * definition's body, or the comments just above `outer` (the node with
 * decorators/attributes/export wrapper).
 */
function docOf(node: Node, outer: Node, spec: LanguageSpec, source: string): string | null {
  if (spec.doc) {
    const d = spec.doc(node, source);
    if (d) return oneDoc(d);
  }
  if (spec.docstring) {
    const body = node.childForFieldName("body");
    const first = body?.firstNamedChild;
    if (first?.type === "expression_statement" && first.firstNamedChild?.type === "string") {
      return oneDoc(first.firstNamedChild.text.replace(/^[rbuRBU]*("""|'''|"|')|("""|'''|"|')$/g, ""));
    }
  }
  if (!spec.commentTypes) return null;
  node = outer;
  const parts: string[] = [];
  // A doc comment may sit before the body node that holds the definition (Ruby `module X` + comment + body).
  let prev = node.previousNamedSibling ?? node.parent?.previousNamedSibling ?? null;
  let line = node.startPosition.row;
  while (prev && spec.commentTypes.includes(prev.type) && prev.endPosition.row >= line - 1) {
    const text = source.slice(prev.startIndex, prev.endIndex);
    if (spec.isDoc && !spec.isDoc(text)) break;
    parts.unshift(text);
    line = prev.startPosition.row;
    prev = prev.previousNamedSibling;
  }
  return parts.length ? oneDoc(cleanComment(parts.join("\n"))) : null;
}

function oneDoc(s: string): string | null {
  const t = s.trim();
  if (!t) return null;
  return t.length > MAX_DOC ? t.slice(0, MAX_DOC) + "…" : t;
}

/** An identifier at the end of a text: Unicode letters and digits as the languages allow (`Ärger`, `数据`). */
const TRAILING_NAME = /([\p{ID_Start}_$][\p{ID_Continue}$!?]*)\s*$/u;

/** Last identifier-looking segment of a callee expression (`a.b.c()` → `c`, `Ärger()` → `Ärger`). */
export function calleeName(text: string): string | null {
  const cleaned = text.replace(/<[^<>]*>/g, "");
  // The callee's own trailing name (`a.b(c).d` → `d`), else the head before any arguments (`f(x)(y)` → `f`).
  const m = cleaned.match(TRAILING_NAME) ?? cleaned.replace(/\([\s\S]*$/, "").match(TRAILING_NAME);
  return m ? m[1] : null;
}

/** 1-based last line of a node; a node ending at column 0 (a trailing newline) ends on the line before. */
function endLine(node: Node): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1;
}

/** 1-based line of the last character of `node` through `last` that is not white space. */
function lastTextLine(node: Node, last: Node, source: string): number {
  let end = last.endIndex;
  while (end > node.startIndex && /\s/.test(source[end - 1])) end--;
  let line = node.startPosition.row + 1;
  for (let i = source.indexOf("\n", node.startIndex); i >= 0 && i < end - 1; i = source.indexOf("\n", i + 1)) line++;
  return line;
}

interface Frame {
  index: number; // into symbols
  end: number; // endIndex of the node
  kind: SymbolKind;
  name: string;
  qname: string;
}

interface CompiledSpec {
  defTypes: Map<string, DefRule>;
  callTypes: Map<string, CallRule>;
  importTypes: Map<string, (node: Node) => string[]>;
}

const compiledSpecs = new WeakMap<LanguageSpec, CompiledSpec>();

/**
 * The spec's rule tables as Maps, built once per spec: node type names such as
 * `constructor` must not resolve to Object.prototype members.
 */
function compiled(spec: LanguageSpec): CompiledSpec {
  let c = compiledSpecs.get(spec);
  if (!c) {
    c = {
      defTypes: new Map(Object.entries(spec.defs)),
      callTypes: new Map(Object.entries(spec.calls ?? {})),
      importTypes: new Map(Object.entries(spec.imports ?? {})),
    };
    compiledSpecs.set(spec, c);
  }
  return c;
}

const ruleTypeLists = new WeakMap<Language, WeakMap<CompiledSpec["defTypes"], string[]>>();

/**
 * The node types some rule of the spec (or occurrence extraction) names that
 * this grammar has: the tree is searched for them once, in WebAssembly, and
 * only matching nodes cross into JS.
 */
function ruleTypes(
  language: Language,
  spec: LanguageSpec,
  { defTypes, callTypes, importTypes }: CompiledSpec,
): string[] {
  let byDefs = ruleTypeLists.get(language);
  if (!byDefs) ruleTypeLists.set(language, byDefs = new WeakMap());
  let types = byDefs.get(defTypes);
  if (!types) {
    const names = new Set([
      ...defTypes.keys(),
      ...callTypes.keys(),
      ...importTypes.keys(),
      ...occurrenceNodeTypes(spec),
    ]);
    types = [...names].filter((n) => language.idForNodeType(n, true));
    byDefs.set(defTypes, types);
  }
  return types;
}

/** The callee a call node names, by its rule (fields tried in order, or a function). */
function calleeOf(node: Node, call: CallRule): string | null {
  if (typeof call === "function") return call(node);
  for (const field of call) {
    const callee = field === "" ? node : node.childForFieldName(field);
    if (callee) return calleeName(callee.text.slice(0, 200));
  }
  return null;
}

/** The names one definition node declares (usually one; `a, b int` declares two). */
function definitionNames(node: Node, rule: DefRule, ctx: RuleContext): string[] {
  if (rule.names) return rule.names(node, ctx);
  const one = typeof rule.name === "function"
    ? rule.name(node, ctx)
    : node.childForFieldName(rule.name ?? "name")?.text ?? null;
  return one ? [one] : [];
}

/** A function declared directly inside a class-like container is a method (not inside a module or namespace). */
function kindInside(kind: SymbolKind, top: Frame | null): SymbolKind {
  const inType = top && CONTAINER_KINDS.has(top.kind) && top.kind !== "module" && top.kind !== "namespace";
  return kind === "function" && inType ? "method" : kind;
}

/** `prefix` + the rule's qualifier (Go receivers) + `name`, joined by the spec's separator or the rule's joiner. */
function qualifiedName(node: Node, rule: DefRule, spec: LanguageSpec, prefix: string | null, name: string): string {
  const qualifier = rule.qualifier?.(node) ?? null;
  let qname = prefix ?? "";
  if (qualifier) qname = qname ? qname + spec.separator + qualifier : qualifier;
  const joiner = rule.joiner === undefined
    ? spec.separator
    : typeof rule.joiner === "string"
    ? rule.joiner
    : rule.joiner(node);
  return qname ? qname + joiner + name : name;
}

/** What one file's extraction reads and accumulates while it walks the tree. */
interface ExtractState {
  spec: LanguageSpec;
  rules: CompiledSpec;
  source: string;
  /** The file's module name (the qualifier of its top-level symbols), if the language has one. */
  module: string | null;
  ctx: RuleContext;
  /** Open definitions enclosing the current node, innermost last. */
  stack: Frame[];
  symbols: ExtractedSymbol[];
  refs: ExtractedRef[];
}

/**
 * Extracts symbols and references from a parsed tree. Past `deadline`
 * (a `performance.now()` time) it stops: what was found so far is kept, and
 * `parseError` says where extraction stopped, so the file counts as one
 * with errors instead of silently missing symbols. (Each step up the tree
 * costs the tree's depth, so 20,000 nested `#if` blocks make extraction
 * quadratic.)
 * With `occurrences` false, the identifier occurrences (the reference
 * index's rows) are not looked for and none are returned.
 */
export function extract(
  tree: Tree,
  spec: LanguageSpec,
  path: string,
  source: string,
  deadline = Infinity,
  occurrences = true,
): FileExtraction {
  const root = tree.rootNode;
  const st: ExtractState = {
    spec,
    rules: compiled(spec),
    source,
    module: spec.module?.(path, root) ?? null,
    ctx: { parentKind: null, parentName: null, source },
    stack: [],
    symbols: [],
    refs: [],
  };
  // Matching nodes in pre-order (start ascending, outer before inner), collected in WebAssembly.
  const types = ruleTypes(tree.language, spec, st.rules);
  const nodes = types.length ? root.descendantsOfType(types).filter((n): n is Node => n !== null) : [];
  nodes.sort((a, b) => a.startIndex - b.startIndex || b.endIndex - a.endIndex);
  // Each node's type is asked of the tree once (a call into WebAssembly) and shared with the occurrence pass.
  const nodeTypes = nodes.map((n) => n.type);
  for (let i = 0; i < nodes.length; i++) {
    if (i % 64 === 0 && performance.now() > deadline) {
      const line = nodes[i].startPosition.row + 1;
      return {
        symbols: st.symbols,
        refs: st.refs,
        occurrences: [],
        parseError: `extraction stopped at line ${line}, over its time budget (nesting too deep): ` +
          "later symbols are missing",
      };
    }
    visit(st, nodes[i], nodeTypes[i]);
  }
  return {
    symbols: st.symbols,
    refs: st.refs,
    occurrences: occurrences ? extractOccurrences(tree, spec, st.symbols, source, { nodes, types: nodeTypes }) : [],
    parseError: root.hasError ? "syntax errors in file (partial extraction)" : null,
  };
}

/** Handles one matching node (of node type `type`): a definition opens a frame, a call or an import adds references. */
function visit(st: ExtractState, node: Node, type: string): void {
  const { stack, refs } = st;
  const { defTypes, callTypes, importTypes } = st.rules;
  const start = node.startIndex;
  // Frames are only read at matching nodes, so closing them lazily here gives the same nesting.
  while (stack.length && start >= stack[stack.length - 1].end) stack.pop();
  const top = stack.length ? stack[stack.length - 1] : null;
  const rule = defTypes.get(type);
  const call = callTypes.get(type);
  const imp = importTypes.get(type);
  if (rule || call || imp) {
    if (rule) {
      st.ctx.parentKind = top?.kind ?? null;
      st.ctx.parentName = top?.name ?? null;
      const frame = defineSymbol(st, node, rule, top);
      if (frame && !rule.leaf) stack.push(frame);
    }
    if (call) {
      const name = calleeOf(node, call);
      if (name) {
        refs.push({ kind: "calls", target: name, line: node.startPosition.row + 1, from: top?.index ?? null });
      }
    }
    if (imp) {
      for (const target of imp(node)) {
        if (target) {
          refs.push({ kind: "imports", target, line: node.startPosition.row + 1, from: top?.index ?? null });
        }
      }
    }
  }
}

/** Records the symbols a definition node declares; the frame of the first one, or null when it declares none. */
function defineSymbol(st: ExtractState, node: Node, rule: DefRule, top: Frame | null): Frame | null {
  const { ctx, spec, source, symbols, refs } = st;
  const declared = typeof rule.kind === "function" ? rule.kind(node, ctx) : rule.kind;
  if (!declared) return null;
  const names = definitionNames(node, rule, ctx);
  const kind = kindInside(declared, top);
  let frame: Frame | null = null;
  for (const raw of names) {
    const name = raw.trim();
    if (!name || name.length > 200) continue;
    const outer = rule.outer ? rule.outer(node) : node;
    const last = rule.until ? rule.until(node) : node;
    const qname = qualifiedName(node, rule, spec, top ? top.qname : st.module, name);
    const sym: ExtractedSymbol = {
      name,
      kind,
      qualifiedName: qname,
      signature: signatureOf(node, rule, source),
      lineStart: outer.startPosition.row + 1,
      lineEnd: rule.endsAtText ? lastTextLine(node, last, source) : endLine(last),
      parent: top?.index ?? null,
      visibility: rule.visibility?.(node, name) ?? null,
      doc: docOf(node, outer, spec, source),
    };
    symbols.push(sym);
    const index = symbols.length - 1;
    if (frame) continue; // one node, several names (`a, b int`): relations and nesting go to the first
    if (rule.heritage) {
      const h = rule.heritage(node);
      const line = node.startPosition.row + 1;
      for (const t of h.extends) if (t) refs.push({ kind: "extends", target: t, line, from: index });
      for (const t of h.implements) if (t) refs.push({ kind: "implements", target: t, line, from: index });
    }
    frame = { index, end: Math.max(node.endIndex, last.endIndex), kind, name, qname };
  }
  return frame;
}
