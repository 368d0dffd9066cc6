/**
 * One service behind every way in: each tool command of the CLI, run with
 * `--json`, prints exactly the answer the MCP tool gives for the same
 * arguments (body and metadata, errors included), on the same index. Every
 * tool command is covered: a command added without a row here fails.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCruxe } from "./helpers/cli_run.ts";
import { copyFixture, git } from "./helpers/fixture_repo.ts";
import { resolveConfig } from "../src/core/config.ts";
import { Registry } from "../src/state/registry.ts";
import { openLocalService } from "../src/service/local_service.ts";
import { toolCommands } from "../src/cli/commands/tool_command.ts";
import { TOOLS } from "../src/service/tools/registry.ts";

const cruxe = runCruxe;

/** Each tool command: its command line, and the tool call an MCP client makes for the same question. */
const CASES: { argv: string[]; tool: string; args: Record<string, unknown> }[] = [
  {
    argv: ["search", "validate", "token", "--limit", "5"],
    tool: "search_code",
    args: { query: "validate token", limit: 5 },
  },
  { argv: ["locate", "ValidateToken"], tool: "locate_symbol", args: { name: "ValidateToken" } },
  { argv: ["locate", "NoSuchSymbolAnywhere"], tool: "locate_symbol", args: { name: "NoSuchSymbolAnywhere" } },
  {
    argv: ["outline", "auth/jwt.go", "--depth", "top"],
    tool: "get_file_outline",
    args: { path: "auth/jwt.go", depth: "top" },
  },
  { argv: ["hierarchy", "CheckRateLimit"], tool: "get_symbol_hierarchy", args: { symbol_name: "CheckRateLimit" } },
  {
    argv: ["related", "ValidateToken", "--limit", "5"],
    tool: "find_related_symbols",
    args: { symbol_name: "ValidateToken", limit: 5 },
  },
  { argv: ["refs", "Claims", "--limit", "2"], tool: "find_references", args: { symbol_name: "Claims", limit: 2 } },
  {
    argv: ["callgraph", "ValidateToken", "--depth", "2"],
    tool: "get_call_graph",
    args: { symbol_name: "ValidateToken", depth: 2 },
  },
  { argv: ["impls", "Validator"], tool: "find_implementations", args: { symbol_name: "Validator" } },
  {
    argv: ["context", "how", "are", "tokens", "validated", "--max-tokens", "800"],
    tool: "get_code_context",
    args: { query: "how are tokens validated", max_tokens: 800 },
  },
  { argv: ["diff", "main"], tool: "diff_context", args: { base_ref: "main" } },
  {
    argv: ["compare", "ValidateToken", "main"],
    tool: "compare_symbol_between_commits",
    args: { symbol_name: "ValidateToken", base_ref: "main" },
  },
  { argv: ["search", "token", "--ref", "main"], tool: "search_code", args: { query: "token", ref: "main" } },
  {
    argv: ["open", "auth/jwt.go", "--start", "2", "--end", "4"],
    tool: "open_file",
    args: { path: "auth/jwt.go", startLine: 2, endLine: 4 },
  },
];

Deno.test("every tool command has a parity case, and every case names a tool command", () => {
  const commands = toolCommands().map((c) => c.name).sort();
  assert.deepEqual([...new Set(CASES.map((c) => c.argv[0]))].sort(), commands);
  const tools = new Map(TOOLS.flatMap((t) => t.cli ? [[t.cli.command, t.name] as const] : []));
  for (const c of CASES) assert.equal(tools.get(c.argv[0]), c.tool, c.argv.join(" "));
});

Deno.test("cruxe <command> --json answers exactly what the MCP tool answers for the same arguments", async () => {
  const repo = copyFixture("go_basic", { git: true });
  const home = Deno.makeTempDirSync({ prefix: "cruxe-parity-home-" });
  try {
    // A change in the working tree against main, for diff and compare.
    const jwt = join(repo, "auth", "jwt.go");
    Deno.writeTextFileSync(jwt, Deno.readTextFileSync(jwt) + "\nfunc CheckedTwice() bool { return true }\n");
    const idx = await cruxe(home, repo, ["index"]);
    assert.equal(idx.code, 0, idx.stderr);
    const ref = await cruxe(home, repo, ["index", "--ref", "main"]);
    assert.equal(ref.code, 0, ref.stderr);
    const answers: Record<string, unknown>[] = [];
    for (const c of CASES) {
      const r = await cruxe(home, repo, [...c.argv, "--json"]);
      assert.ok(r.code <= 1 || r.stdout.includes('"error"'), `${c.argv.join(" ")}: ${r.stderr}`);
      answers.push(JSON.parse(r.stdout));
    }
    const registry = Registry.open(home);
    const service = openLocalService(resolveConfig({ CRUXE_HOME: home }, Deno.build.os), registry, repo);
    try {
      for (const [i, c] of CASES.entries()) {
        const mcp = await service.call(c.tool, { workspace: repo, ...c.args });
        assert.deepEqual(answers[i], mcp.structuredContent, `cruxe ${c.argv.join(" ")} --json`);
      }
    } finally {
      service.close();
    }
    // The answers say something: the parity is not of empty answers.
    assert.ok((answers[0].results as unknown[]).length > 0);
    assert.ok("error" in answers[2]);
    assert.ok((answers[10].changes as unknown[]).length > 0, "diff sees the change");
  } finally {
    git(repo, "status"); // the repository is intact
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(repo, { recursive: true });
  }
});
