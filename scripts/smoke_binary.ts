/**
 * Smoke test of a compiled `cruxe` binary on the machine it is built for:
 * `--version`; `index` of a fixture repository; `search` and `locate` with
 * `--json`; `serve-mcp` over stdio answering `initialize` and one tool; one
 * read outside the repository refused. The store is the platform's default
 * location (under a temporary `LOCALAPPDATA`, `HOME` or `XDG_DATA_HOME`), so
 * Windows paths with drive letters and backslashes, and `%LOCALAPPDATA%`, are
 * exercised where they exist. Exits 1 on the first failure.
 * Run: deno run -A scripts/smoke_binary.ts dist/cruxe-x86_64-unknown-linux-gnu
 * (or, to check the script itself from source: `… smoke_binary.ts deno run -A main.ts`; words after the
 * program go before each command's arguments).
 * Requires `--allow-run` (the binary), `--allow-read`/`--allow-write` (temp dirs), `--allow-env`.
 */
import { mcpHandshake, toolCall } from "./mcp_messages.ts";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultHome } from "../src/core/config.ts";

const dec = new TextDecoder();

function fail(step: string, detail: string): never {
  console.error(`smoke FAILED at ${step}: ${detail}`);
  Deno.exit(1);
}

function copyDir(src: string, dest: string): void {
  Deno.mkdirSync(dest, { recursive: true });
  for (const e of Deno.readDirSync(src)) {
    if (e.isDirectory) copyDir(join(src, e.name), join(dest, e.name));
    else if (e.isFile) Deno.copyFileSync(join(src, e.name), join(dest, e.name));
  }
}

/** The environment that puts the default store under `dir` on this OS. */
function storeEnv(dir: string): Record<string, string> {
  if (Deno.build.os === "windows") return { LOCALAPPDATA: dir };
  if (Deno.build.os === "darwin") return { HOME: dir };
  return { XDG_DATA_HOME: dir };
}

/** The program to test and the words that go before each command's arguments. */
let prefix: string[] = [];

/** Runs the binary with `args`; fails the smoke test on a non-zero exit. */
async function run(bin: string, env: Record<string, string>, step: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(bin, {
    args: [...prefix, ...args],
    env,
    clearEnv: true, // `env` is the whole environment: a CRUXE_HOME of the caller's must not move the store
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  if (!out.success) fail(step, `exit ${out.code}: ${dec.decode(out.stderr)}`);
  return dec.decode(out.stdout);
}

/** Sends MCP requests to `serve-mcp` on stdio, closes its input, and returns the answers by id. */
async function mcpSession(bin: string, env: Record<string, string>, repo: string, requests: unknown[]) {
  const child = new Deno.Command(bin, {
    args: [...prefix, "serve-mcp", "--workspace", repo, "--no-prewarm"],
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(requests.map((r) => JSON.stringify(r)).join("\n") + "\n"));
  await w.close();
  const killer = setTimeout(() => child.kill(), 120_000); // a bound for a hang
  const out = await child.output();
  clearTimeout(killer);
  if (!out.success) fail("serve-mcp", `exit ${out.code}: ${dec.decode(out.stderr)}`);
  const byId = new Map<unknown, Record<string, unknown>>();
  for (const line of dec.decode(out.stdout).split("\n").filter((l) => l.trim())) {
    const m = JSON.parse(line);
    byId.set(m.id, m);
  }
  return byId;
}

async function main(): Promise<void> {
  const [program, ...rest] = Deno.args;
  if (!program) fail("arguments", "usage: smoke_binary.ts PATH_TO_BINARY");
  const bin = program.includes("/") || program.includes("\\") ? resolve(program) : program;
  prefix = rest;
  const tmp = Deno.makeTempDirSync({ prefix: "cruxe-smoke-" });
  try {
    const store = join(tmp, "store");
    Deno.mkdirSync(store);
    const env: Record<string, string> = { ...Deno.env.toObject(), ...storeEnv(store) };
    delete env.CRUXE_HOME;
    const repo = join(tmp, "repo");
    copyDir(fileURLToPath(new URL("../fixtures/repos/go_basic", import.meta.url)), repo);
    Deno.writeTextFileSync(join(tmp, "outside.txt"), "not part of the repository\n");

    const version = await run(bin, env, "--version", ["--version"]);
    if (!/^cruxe \d+\.\d+\.\d+/.test(version)) fail("--version", version);

    const indexed = JSON.parse(await run(bin, env, "index", ["index", "--path", repo, "--json"]));
    if (!(indexed.total_files >= 2)) fail("index", JSON.stringify(indexed));
    const home = defaultHome({ ...storeEnv(store) }, Deno.build.os);
    try {
      Deno.statSync(join(home, "registry.db")).isFile || fail("store", `no registry in ${home}`);
    } catch {
      fail("store", `the store is not at the platform default ${home}`);
    }

    const search = JSON.parse(await run(bin, env, "search", ["search", "rate limit", "--workspace", repo, "--json"]));
    if (search.results?.[0]?.path !== "auth/rate_limiter.go") fail("search", JSON.stringify(search).slice(0, 500));
    const located = JSON.parse(
      await run(bin, env, "locate", ["locate", "ValidateToken", "--workspace", repo, "--json"]),
    );
    if (located.results?.[0]?.path !== "auth/jwt.go") fail("locate", JSON.stringify(located).slice(0, 500));

    const answers = await mcpSession(bin, env, repo, [
      ...mcpHandshake("smoke"),
      toolCall(2, "locate_symbol", { name: "ValidateToken" }),
      toolCall(3, "open_file", { path: "../outside.txt" }),
    ]);
    const init = answers.get(1)?.result as { serverInfo?: { name?: string } } | undefined;
    if (init?.serverInfo?.name !== "cruxe") fail("initialize", JSON.stringify(answers.get(1)));
    const tool = answers.get(2)?.result as { content?: { text: string }[] } | undefined;
    if (!tool?.content?.[0]?.text.includes("auth/jwt.go")) fail("tools/call", JSON.stringify(answers.get(2)));
    const refused = answers.get(3)?.result as { isError?: boolean; content?: { text: string }[] } | undefined;
    const code = refused?.content ? JSON.parse(refused.content[0].text).error?.code : undefined;
    if (!refused?.isError || code !== "forbidden") fail("read outside refused", JSON.stringify(answers.get(3)));
    if (refused.content![0].text.includes("not part of the repository")) fail("read outside refused", "content leaked");
    console.log(`smoke ok: ${version.trim()} on ${Deno.build.os}/${Deno.build.arch} (store ${home})`);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
}

if (import.meta.main) await main();
