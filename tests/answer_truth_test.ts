/**
 * Every answer true: every query tool's answer over every fixture repository
 * (the calls of `scripts/answer_snapshot.ts`, answers in full) is checked
 * against the files themselves. Every path named exists; every line named is
 * a line of it; every snippet, content and line text is made of the file's
 * own lines, at the lines it claims; every symbol's range holds its name.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Answer, answers } from "../scripts/answer_snapshot.ts";
import { bodyOf, inProcess } from "./mcp_helpers.ts";
import { copyFixture } from "./helpers/fixture_repo.ts";
import { registerProject } from "../src/index/project_setup.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const REPOS = join(ROOT, "fixtures/repos");
const ELIDED = /^⋯ lines (\d+)-(\d+) elided$/;
/** Context roles whose content is the file's own lines. */
const VERBATIM_ROLES = new Set(["definition", "snippet", "imports"]);

type Json = Record<string, unknown>;

/** What the suite found wrong, and how many claims it checked (so an empty walk cannot pass). */
interface Tally {
  faults: string[];
  checked: Record<string, number>;
}

const fileCache = new Map<string, string[] | null>();

/** The lines of `root/path` (null when there is no such file). */
function fileLinesOf(root: string, path: string): string[] | null {
  const key = join(root, path);
  if (!fileCache.has(key)) {
    let lines: string[] | null = null;
    try {
      const text = Deno.readTextFileSync(key);
      lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
    } catch { /* missing: null */ }
    fileCache.set(key, lines);
  }
  return fileCache.get(key)!;
}

/** True when `shown` is `actual`, or a cut of it ending in `…`. */
function sameLine(shown: string, actual: string | undefined): boolean {
  if (actual === undefined) return false;
  if (shown === actual) return true;
  return shown.endsWith("…") && actual.startsWith(shown.slice(0, -1));
}

/** The numbered fields an object names: its range, or its one line. */
function rangeOf(o: Json): [number, number] | null {
  const num = (k: string) => typeof o[k] === "number" ? o[k] as number : undefined;
  const start = num("line_start") ?? num("startLine") ?? num("line");
  if (start === undefined) return null;
  return [start, num("line_end") ?? num("endLine") ?? start];
}

/** One object's claims about one file: its lines, its range, and where faults and counts go. */
interface Claim {
  lines: string[];
  ls: number;
  le: number;
  fault: (what: string) => void;
  count: (kind: string) => void;
}

/** Checks one object naming a path (and maybe lines, text, a symbol) against the file. */
function checkObject(o: Json, root: string, call: string, t: Tally): void {
  const path = o.path as string;
  const lines = fileLinesOf(root, path);
  const fault = (what: string) => void t.faults.push(`${call}: ${path} ${what}`);
  const count = (k: string) => void (t.checked[k] = (t.checked[k] ?? 0) + 1);
  if (!lines) return fault("does not exist");
  count("paths");
  const range = rangeOf(o);
  if (!range) return;
  const [ls, le] = range;
  count("ranges");
  // An empty file has no line: `0-0` is all that can be named in it.
  const empty = lines.length === 0 && ls === 0 && le === 0;
  if (!empty && !(ls >= 1 && le >= ls && le <= lines.length)) {
    return fault(`names lines ${ls}-${le}; the file has ${lines.length}`);
  }
  if (empty) return;
  const c: Claim = { lines, ls, le, fault, count };
  if (typeof o.line_text === "string") {
    count("line_texts");
    if (!sameLine(o.line_text, lines[ls - 1])) fault(`line ${ls} shown as ${JSON.stringify(o.line_text)}`);
  }
  if (Array.isArray(o.match_lines)) checkMatchLines(o.match_lines, Boolean(o.snippet), c);
  if (typeof o.snippet === "string") checkSnippet(o.snippet, c);
  // A context item for a symbol beside the answer (container, member, callee) shows its doc and signature,
  // not its lines; every other content is the file's text.
  const summary = typeof o.role === "string" && !VERBATIM_ROLES.has(o.role);
  if (typeof o.content === "string" && !summary) checkContent(o, c);
  // An inheritance reference is stored at the line of the type that inherits, not of the name it names;
  // a snippet result's lines are the lines that matched, its name the symbol around them.
  const inherits = o.kind === "reference" && (o.reference_kind === "extends" || o.reference_kind === "implements");
  if (typeof o.kind === "string" && typeof o.name === "string" && "line_end" in o && !inherits) {
    if (o.result_type !== "snippet") checkName(o.name, o.kind, c);
  }
}

/** `match_lines`: each the file's line, inside the range; present whenever there is a snippet. */
function checkMatchLines(list: { line: number; text: string }[], snippet: boolean, c: Claim): void {
  if (!list.length && snippet) c.fault(`${c.ls}-${c.le}: a snippet but no match_lines`);
  for (const m of list) {
    c.count("match_lines");
    if (m.line < c.ls || m.line > c.le) c.fault(`match line ${m.line} outside ${c.ls}-${c.le}`);
    if (!sameLine(m.text, c.lines[m.line - 1])) c.fault(`match line ${m.line} shown as ${JSON.stringify(m.text)}`);
  }
}

/** A symbol's range holds its name (the last part of a qualified one). */
function checkName(name: string, kind: string, c: Claim): void {
  c.count("symbols");
  const body = c.lines.slice(c.ls - 1, c.le).join("\n");
  const leaf = name.replace(/^~/, "").split(/::|\.|#|\\/).pop()!;
  if (!body.includes(leaf)) c.fault(`symbol ${name} (${kind}) not in its lines ${c.ls}-${c.le}`);
}

/** A snippet: never empty, its lines a run of the file's lines inside the range. */
function checkSnippet(snippet: string, c: Claim): void {
  c.count("snippets");
  const shown = snippet.replace(/\n$/, "").split("\n");
  if (!snippet.trim()) return c.fault(`${c.ls}-${c.le}: empty snippet`);
  for (let at = c.ls; at + shown.length - 1 <= c.le; at++) {
    if (shown.every((l, i) => sameLine(l, c.lines[at - 1 + i]))) return;
  }
  c.fault(`${c.ls}-${c.le}: snippet is not a run of its lines: ${JSON.stringify(snippet.slice(0, 120))}`);
}

/** Content starting at the range's start, its `⋯ lines A-B elided` markers standing for the lines they name. */
function checkContent(o: Json, c: Claim): void {
  c.count("contents");
  const shown = (o.content as string).replace(/\n$/, "").split("\n");
  let at = c.ls;
  for (const [i, l] of shown.entries()) {
    const m = l.match(ELIDED);
    if (m) {
      if (Number(m[1]) !== at) c.fault(`content elides from ${m[1]} at line ${at}`);
      at = Number(m[2]) + 1;
      continue;
    }
    const last = i === shown.length - 1 && (o.content_truncated === true || o.truncated === true);
    if (!(sameLine(l, c.lines[at - 1]) || (last && (c.lines[at - 1] ?? "").startsWith(l)))) {
      return c.fault(`content line ${at} shown as ${JSON.stringify(l.slice(0, 120))}`);
    }
    at++;
  }
  if (at - 1 > c.le) c.fault(`content runs to line ${at - 1}, past ${c.le}`);
}

/** Walks an answer body, checking every object that names a path. */
function walk(v: unknown, root: string, call: string, t: Tally): void {
  if (Array.isArray(v)) return v.forEach((x) => walk(x, root, call, t));
  if (!v || typeof v !== "object") return;
  const o = v as Json;
  // A multi-repository item names its own repository.
  const here = typeof o.repo === "string" && isDir(join(REPOS, o.repo)) ? join(REPOS, o.repo) : root;
  if (typeof o.path === "string" && !o.path.startsWith("/")) checkObject(o, here, call, t);
  for (const [k, x] of Object.entries(o)) if (k !== "metadata") walk(x, here, call, t);
}

function isDir(p: string): boolean {
  try {
    return Deno.statSync(p).isDirectory;
  } catch {
    return false;
  }
}

/** The workspace a recorded call was made on (its label's JSON). */
function workspaceOf(a: Answer): string {
  const args = JSON.parse(a.call.slice(a.call.indexOf(" ") + 1));
  return join(ROOT, args.workspace);
}

Deno.test("answer truth: every path, line, snippet and symbol of every query answer is the file's", async () => {
  const all = await answers(undefined, true);
  const t: Tally = { faults: [], checked: {} };
  for (const a of all) {
    const { isError, body } = a.answer as { isError: boolean; body: Json };
    if (!isError) walk(body, workspaceOf(a), a.call.slice(0, 160), t);
  }
  // Every kind of claim was met many times: a walk that found nothing proves nothing.
  for (const k of ["paths", "ranges", "line_texts", "snippets", "contents", "symbols"]) {
    assert.ok((t.checked[k] ?? 0) >= 20, `only ${t.checked[k] ?? 0} ${k} checked`);
  }
  assert.deepEqual(t.faults.slice(0, 30), [], `${t.faults.length} untrue claims`);
});

Deno.test("answer truth: no answer says fresh while its workspace has no published index", async () => {
  const repo = copyFixture("go_basic");
  const s = inProcess();
  try {
    registerProject(s.registry, repo);
    const calls: [string, Json][] = [
      ["search_code", { query: "validate token" }],
      ["locate_symbol", { name: "ValidateToken" }],
      ["get_file_outline", { path: "auth/jwt.go" }],
      ["find_references", { name: "ValidateToken" }],
      ["get_call_graph", { name: "ValidateToken" }],
      ["get_code_context", { query: "validate token", max_tokens: 500 }],
      ["get_symbol_hierarchy", { name: "ValidateToken" }],
      ["find_related_symbols", { name: "ValidateToken" }],
      ["suggest_followup_queries", { previous_query: { tool: "search_code", params: { query: "token" } } }],
      ["index_status", {}],
    ];
    let metas = 0;
    for (const [tool, args] of calls) {
      const body = bodyOf(await s.call(tool, { ...args, workspace: repo }));
      const meta = body.metadata as Json | undefined;
      if (!meta) continue;
      metas++;
      assert.notEqual(meta.freshness_status, "fresh", `${tool}: ${JSON.stringify(meta)}`);
    }
    assert.ok(metas >= calls.length - 1, `only ${metas} answers carried metadata`);
  } finally {
    s.close();
    Deno.removeSync(s.home, { recursive: true });
    Deno.removeSync(repo, { recursive: true });
  }
});
