/**
 * get_file_outline on a large file answers in pages of whole top-level
 * symbols, each at most 8 KB, that together list every symbol once; a type
 * with more members than a page is listed alone with its member count; a small
 * file answers in one piece as before.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { registerProject } from "../src/index/project_setup.ts";
import { bodyOf, inProcess } from "./mcp_helpers.ts";

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

Deno.test("a large file's outline comes in pages of at most 8 KB that list every top-level symbol once", async () => {
  const dir = largeGoRepo();
  const s = inProcess({ cwd: dir });
  try {
    const job = await s.rt.runner.start(registerProject(s.registry, dir), { mode: "full", force: false }).active.done;
    assert.equal(job.status, "published");
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    let serverNode: Record<string, unknown> | undefined;
    do {
      const r = await s.call("get_file_outline", { workspace: dir, path: "big.go", ...(cursor ? { cursor } : {}) });
      const text = (r.content as { text: string }[])[0].text;
      assert.ok(new TextEncoder().encode(text).length <= 8 * 1024, `page ${pages}: ${text.length} bytes`);
      const b = bodyOf(r);
      // Every page but the last says the answer is cut, and the metadata says so too.
      const more = typeof b.next_cursor === "string";
      assert.equal(b.truncated === true, more || (b.symbols as { child_count?: number }[]).some((n) => n.child_count));
      if (more) assert.equal((b.metadata as { result_completeness: string }).result_completeness, "truncated");
      for (const n of b.symbols as Record<string, unknown>[]) {
        names.push(n.name as string);
        if (n.name === "Server") serverNode = n;
      }
      cursor = (b.next_cursor as string | null) ?? undefined;
      pages++;
      assert.ok(pages < 50, "the pages end");
    } while (cursor);
    assert.equal(names.length, FUNCS + 1, "every top-level symbol");
    assert.equal(new Set(names).size, names.length, "each once");
    assert.ok(pages >= 3, `${pages} pages`);
    assert.equal(
      serverNode?.child_count,
      METHODS + 1,
      "a type larger than a page gives its member count (methods, field)",
    );

    const small = bodyOf(await s.call("get_file_outline", { workspace: dir, path: "small.go" }));
    assert.equal(small.next_cursor, undefined, "a small file answers in one piece");
    assert.deepEqual((small.symbols as { name: string }[]).map((n) => n.name), ["Small"]);

    const bad = bodyOf(await s.call("get_file_outline", { workspace: dir, path: "big.go", cursor: "outline:99999" }));
    assert.equal((bad.error as { code: string }).code, "invalid_input");
  } finally {
    s.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
