/**
 * A repository whose tracked directory `h/` has become a symlink to a
 * directory outside it (git still lists `h/.bashrc` and `h/tool.py`). Through
 * the real CLI and the real server (spawned with the `cruxe` task's
 * permission flags), after `index` and after `sync` (the directory replaced
 * after a first index): the scan counts the files under `symlinks`, the
 * previously indexed files under `h/` disappear, and no query tool ever
 * returns the outside files' content.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { commitAll, git } from "./helpers/fixture_repo.ts";
import { bodyOf, CRUXE_FLAGS, REPO_ROOT, stdioClient, tempHomeDir } from "./mcp_helpers.ts";

/** Only the outside files hold it, and no request ever carries it: seeing it in an answer is a leak. */
const SECRET = `SECRET_${crypto.randomUUID().replaceAll("-", "")}`;
/** The outside files' own function: what a search for outside content would ask for. */
const NAME = `hostile_fn_${crypto.randomUUID().replaceAll("-", "")}`;

/** A git repository with `h/` tracked, and an outside directory holding the marker; `h` still real. */
function hostileRepo(): { repo: string; outside: string } {
  const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "cruxe-hostile-" }));
  const repo = join(base, "repo");
  const outside = join(base, "outside");
  Deno.mkdirSync(join(repo, "h"), { recursive: true });
  Deno.mkdirSync(outside);
  Deno.writeTextFileSync(join(repo, "main.py"), "def main_entry():\n    return 2\n");
  Deno.writeTextFileSync(join(repo, "h/.bashrc"), "alias x=1\n");
  Deno.writeTextFileSync(join(repo, "h/tool.py"), "def benign_tool():\n    return 1\n");
  Deno.writeTextFileSync(join(outside, ".bashrc"), `alias x=1 # ${SECRET}\n`);
  Deno.writeTextFileSync(
    join(outside, "tool.py"),
    `def ${NAME}(token="${SECRET}"):
    return token


def benign_tool():
    return "${SECRET}"
`,
  );
  git(repo, "init", "-q", "-b", "main");
  commitAll(repo, "initial");
  return { repo, outside };
}

/** Replaces the tracked directory `h` by a symlink to `outside`. */
function swapForSymlink(repo: string, outside: string): void {
  Deno.removeSync(join(repo, "h"), { recursive: true });
  Deno.symlinkSync(outside, join(repo, "h"));
  assert.ok(git(repo, "ls-files").includes("h/tool.py"), "git still lists the files below the symlink");
}

/** Runs `cruxe index|sync --path repo --json` as the CLI would run; returns its summary. */
async function cli(home: string, cmd: "index" | "sync", repo: string): Promise<Record<string, unknown>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), cmd, "--path", repo, "--json"],
    env: { ...Deno.env.toObject(), CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  assert.ok(!text.includes(SECRET), `the ${cmd} summary shows outside content`);
  return JSON.parse(text);
}

/** Every query tool, asked about what lives outside; none may answer with it. */
async function assertNothingLeaks(home: string, repo: string, phase: string, extra: string[] = []): Promise<void> {
  const s = await stdioClient(home, ["--workspace", repo, "--no-prewarm", "--tools", "all", ...extra]);
  try {
    const calls: [string, Record<string, unknown>][] = [
      ["search_code", { query: NAME }],
      ["search_code", { query: "benign_tool" }],
      ["get_file_outline", { path: "h/tool.py" }],
      ["get_code_context", { query: `${NAME} benign_tool` }],
      ["locate_symbol", { name: NAME }],
      ["locate_symbol", { name: "benign_tool" }],
      ["find_related_symbols", { symbol_name: "benign_tool", path: "h/tool.py" }],
      ["open_file", { path: "h/tool.py" }],
      ["open_file", { path: "h/.bashrc" }],
      ["ask_code", { query: `benign_tool ${NAME}`, grounded: true }],
    ];
    for (const [name, args] of calls) {
      const r = await s.client.callTool({ name, arguments: { workspace: repo, ...args } });
      const text = JSON.stringify(r);
      assert.ok(!text.includes(SECRET), `${phase}: ${name} ${JSON.stringify(args)} returned outside content: ${text}`);
      if (name === "open_file") {
        assert.equal((bodyOf(r).error as { code?: string })?.code, "forbidden", `${phase}: ${text}`);
      }
    }
    // The index itself still answers (the leak check is not vacuous).
    const main = bodyOf(
      await s.client.callTool({ name: "locate_symbol", arguments: { workspace: repo, name: "main_entry" } }),
    );
    assert.ok(JSON.stringify(main).includes("main.py"), `${phase}: ${JSON.stringify(main)}`);
  } finally {
    await s.client.close().catch(() => {});
  }
}

Deno.test({
  name: "hostile symlinked directory: index skips the files below it (counted as symlinks), no tool returns them",
  fn: async () => {
    const { repo, outside } = hostileRepo();
    swapForSymlink(repo, outside);
    const home = tempHomeDir();
    const summary = await cli(home, "index", repo);
    // The link `h` itself (untracked) and the two tracked files below it.
    assert.equal((summary.skipped as Record<string, number>).symlinks, 3, JSON.stringify(summary));
    assert.equal(summary.total_files, 1, JSON.stringify(summary));
    await assertNothingLeaks(home, repo, "after index");
  },
});

Deno.test({
  name: "hostile symlinked directory: after sync the files below it are gone from the index, no tool returns them",
  fn: async () => {
    const { repo, outside } = hostileRepo();
    const home = tempHomeDir();
    const first = await cli(home, "index", repo);
    assert.equal(first.total_files, 3, JSON.stringify(first));
    swapForSymlink(repo, outside);
    // Before the sync the index still holds the old h/ files; the reads from disk (open_file, ask_code) must refuse.
    // --no-watch: a live server would sync the swap by itself, and this phase is about the index before a sync.
    await assertNothingLeaks(home, repo, "swapped, not yet synced", ["--no-watch"]);
    const synced = await cli(home, "sync", repo);
    assert.equal((synced.skipped as Record<string, number>).symlinks, 3, JSON.stringify(synced));
    assert.equal(synced.deleted, 2, JSON.stringify(synced));
    assert.equal(synced.total_files, 1, JSON.stringify(synced));
    await assertNothingLeaks(home, repo, "after sync");
  },
});
