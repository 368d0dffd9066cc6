/**
 * get_file_outline on a large file answers in pages of at most 8 KB, each
 * summarising the file's top level and giving the exact call for the next
 * page; the pages together list every symbol exactly once, a member under
 * its type when both are in one page. A small file answers in one piece as
 * before, even when one symbol holds all the others.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { registerProject } from "../src/index/project_setup.ts";
import { bodyOf, inProcess } from "./mcp_helpers.ts";
import { copyFixture } from "./helpers/fixture_repo.ts";

type Json = Record<string, unknown>;

const FUNCS = 300;
const METHODS = 100;

/** A Go package with one large file (many functions with long signatures, one type with many methods) and a small one. */
function largeGoRepo(): string {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-outline-pages-" });
  Deno.writeTextFileSync(join(dir, "go.mod"), "module example.com/big\n\ngo 1.21\n");
  let src = "package big\n\ntype Server struct {\n\tID int\n}\n\n";
  for (let m = 0; m < METHODS; m++) {
    src +=
      `func (s *Server) Handle${m}(ctx context.Context, request *Request, options ...Option) (*Response, error) {\n` +
      "\treturn nil, nil\n}\n\n";
  }
  for (let f = 0; f < FUNCS; f++) {
    src += `func Process${f}(input []byte, limit int, callback func(int) error) (result []string, err error) {\n` +
      "\treturn nil, nil\n}\n\n";
  }
  Deno.writeTextFileSync(join(dir, "big.go"), src);
  Deno.writeTextFileSync(join(dir, "small.go"), "package big\n\nfunc Small() int { return 1 }\n");
  return dir;
}

/** Each node of `nodes` and of their children, with the name of the node it is listed under ("" at the top). */
function flatten(nodes: Json[], under = ""): { name: string; under: string }[] {
  return nodes.flatMap((n) => [
    { name: n.name as string, under },
    ...flatten((n.children as Json[] | undefined) ?? [], n.name as string),
  ]);
}

/** Follows `next_call` from the first page; checks each page's size and flags on the way. */
async function allPages(s: ReturnType<typeof inProcess>, dir: string, args: Json): Promise<Json[]> {
  const pages: Json[] = [];
  let call: Json | undefined = { ...args };
  while (call) {
    const r = await s.call("get_file_outline", { workspace: dir, ...call });
    const text = (r.content as { text: string }[])[0].text;
    assert.ok(new TextEncoder().encode(text).length <= 8 * 1024, `page ${pages.length}: ${text.length} bytes`);
    const b = bodyOf(r);
    assert.equal(b.error, undefined, text.slice(0, 300));
    const next = b.next_call as { tool: string; arguments: Json } | undefined;
    // Every page but the last says the answer is cut, and the metadata says so too.
    assert.equal(b.truncated === true, next !== undefined);
    assert.equal((b.metadata as Json).result_completeness, next ? "truncated" : "complete");
    if (next) assert.equal(next.tool, "get_file_outline");
    pages.push(b);
    call = next?.arguments;
    assert.ok(pages.length < 60, "the pages end");
  }
  return pages;
}

Deno.test("a large file's outline comes in pages of at most 8 KB that list every symbol exactly once", async () => {
  const dir = largeGoRepo();
  const s = inProcess({ cwd: dir });
  try {
    const job = await s.rt.runner.start(registerProject(s.registry, dir), { mode: "full", force: false }).active.done;
    assert.equal(job.status, "published");

    const pages = await allPages(s, dir, { path: "big.go" });
    assert.ok(pages.length >= 3, `${pages.length} pages`);
    assert.deepEqual(pages[0].top_level_kinds, { struct: 1, function: FUNCS }, "the top level, summarised");
    const nodes = pages.flatMap((p) => flatten(p.symbols as Json[]));
    const names = nodes.map((n) => n.name);
    assert.equal(names.length, 1 + 1 + METHODS + FUNCS, "the type, its field, its methods and the functions");
    assert.equal(new Set(names).size, names.length, "each once");
    for (let f = 0; f < FUNCS; f++) assert.ok(names.includes(`Process${f}`), `Process${f}`);
    for (let m = 0; m < METHODS; m++) assert.ok(names.includes(`Handle${m}`), `Handle${m}`);
    // A method in the page of its type is listed under it; in a later page it says its type in its qualified name.
    assert.equal(nodes.find((n) => n.name === "Handle0")?.under, "Server");
    const later = pages.slice(1).flatMap((p) => p.symbols as Json[]).find((n) => n.kind === "method");
    assert.ok(later, "a later page starts inside the type's methods");
    assert.match(String(later.qualified_name), /Server\.Handle\d+$/);

    const top = await allPages(s, dir, { path: "big.go", depth: "top" });
    assert.ok(top.length >= 2, `${top.length} pages at depth top`);
    const { cursor, ...same } = (top[0].next_call as { arguments: Json }).arguments;
    assert.deepEqual(same, { path: "big.go", depth: "top" }, "the next call repeats this call's arguments");
    assert.equal(typeof cursor, "string");
    const topNames = top.flatMap((p) => flatten(p.symbols as Json[]).map((n) => n.name));
    assert.equal(topNames.length, new Set(topNames).size);
    assert.equal(topNames.length, 1 + METHODS + FUNCS, "Go methods are top-level declarations");

    const small = bodyOf(await s.call("get_file_outline", { workspace: dir, path: "small.go" }));
    assert.deepEqual(Object.keys(small).sort(), [
      "language",
      "line_count",
      "metadata",
      "path",
      "symbol_count",
      "symbols",
    ]);
    assert.deepEqual((small.symbols as { name: string }[]).map((n) => n.name), ["Small"]);

    const bad = bodyOf(await s.call("get_file_outline", { workspace: dir, path: "big.go", cursor: "outline:99999" }));
    assert.equal((bad.error as { code: string }).code, "invalid_input");
  } finally {
    s.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a small file's outline is one answer, whole, even when one symbol holds every other", async () => {
  const repo = copyFixture("cpp_basic");
  const s = inProcess();
  try {
    registerProject(s.registry, repo);
    await s.call("index_repo", { workspace: repo, wait: true });
    const b = bodyOf(await s.call("get_file_outline", { workspace: repo, path: "src/token_store.hpp" }));
    assert.deepEqual(Object.keys(b).sort(), ["language", "line_count", "metadata", "path", "symbol_count", "symbols"]);
    const nodes = flatten(b.symbols as Json[]);
    assert.ok(nodes.length > 1, "the namespace and what it holds");
    assert.equal(nodes.length, b.symbol_count, "every symbol of the file");
    assert.deepEqual((b.symbols as Json[]).map((n) => n.name), ["acme"]);
  } finally {
    s.close();
    Deno.removeSync(repo, { recursive: true });
  }
});
