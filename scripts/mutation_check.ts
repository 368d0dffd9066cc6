/**
 * Checks the suite against itself: each mutation breaks one security or
 * reliability behaviour in a scratch copy of the checkout (`cp -r` to a
 * temporary directory, `node_modules` and `grammars` symlinked), runs the
 * test that claims to guard it, and reports `caught` (the test failed),
 * `MISSED` (it still passed), `stale` (the code to break is no longer there:
 * update the mutation) or `timeout`. A baseline run first confirms every named
 * test passes unmutated. The table in tests/README.md lists the same rows.
 *
 * Usage: deno task mutate [--only id,id] [--list] [--no-baseline]
 * Needs --allow-read, --allow-write (temporary directory), --allow-run, --allow-env.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CRUXE_FLAGS } from "../tests/mcp_helpers.ts";

/** One deliberate break and the test that must notice it. */
export interface Mutation {
  id: string;
  /** The behaviour (claim) the mutation breaks. */
  claim: string;
  file: string;
  /** Exact text replaced (must occur exactly once unless `all`). */
  find: string;
  replace: string;
  all?: boolean;
  /** Test file and optional `--filter` (a test name substring). */
  test: string;
  filter?: string;
}

const SANDBOX_REEXEC = "sandboxedServe (reexec)";
const SANDBOX_WORKER = "sandboxedServe (worker)";

/** The mutation table (kept in step with tests/README.md). */
export const MUTATIONS: Mutation[] = [
  {
    id: "cli-json-not-tool-answer",
    claim: "one service: `cruxe <cmd> --json` prints the MCP tool's answer, metadata included",
    file: "src/cli/commands/tool_command.ts",
    find: "if (json) printJson(answer);",
    replace: "if (json) printJson({ ...answer, metadata: undefined });",
    test: "tests/cli_mcp_parity_test.ts",
    filter: "answers exactly",
  },
  {
    id: "reader-tool-on-main-ignored",
    claim: "where a tool runs: a call a reader tool declares for the main thread never goes to a worker",
    file: "src/service/dispatch.ts",
    find: "return def.onMain?.when(args, this.rt.embedder !== null) ?? false;",
    replace: "return false;",
    test: "tests/semantic_test.ts",
  },
  {
    id: "sandbox-reexec-all-perms",
    claim: "sandbox: the re-executed server gets only the narrow grants",
    file: "src/cli/sandbox.ts",
    find: 'const args = ["run", ...buildSandboxFlags(policy)];',
    replace: 'const args = ["run", "-A"];',
    test: "tests/sandbox_test.ts",
    filter: SANDBOX_REEXEC,
  },
  {
    id: "sandbox-reexec-read-all",
    claim: "sandbox: reads only the allowed roots, home and own files",
    file: "src/cli/sandbox.ts",
    find: '`--allow-read=${p.read.join(",")}`',
    replace: '"--allow-read"',
    test: "tests/sandbox_test.ts",
    filter: SANDBOX_REEXEC,
  },
  {
    id: "sandbox-write-roots",
    claim: "sandbox: writes only the Cruxe home",
    file: "src/cli/sandbox.ts",
    find: 'write: minimalPaths(bothForms(check(i.home, "CRUXE_HOME"))),',
    replace: "write: minimalPaths([...read]),",
    test: "tests/sandbox_test.ts",
    filter: SANDBOX_REEXEC,
  },
  {
    id: "sandbox-net-any",
    claim: "sandbox: connects only to its listen address and the LLM endpoint",
    file: "src/cli/sandbox.ts",
    find: 'if (p.net.length) flags.push(`--allow-net=${p.net.join(",")}`);',
    replace: 'flags.push("--allow-net");',
    test: "tests/sandbox_test.ts",
    filter: SANDBOX_REEXEC,
  },
  {
    id: "sandbox-reexec-full-env",
    claim: "sandbox: secrets in the environment do not reach the server",
    file: "src/cli/sandbox.ts",
    find: "env: sandboxEnv(env),\n    clearEnv: true,",
    replace: 'env: { ...env, [SANDBOX_ENV_MARKER]: "1" },',
    test: "tests/sandbox_test.ts",
    filter: SANDBOX_REEXEC,
  },
  {
    id: "sandbox-off",
    claim: "sandbox: serving always goes through the sandbox",
    file: "src/cli/sandbox.ts",
    find: '  if (env[SANDBOX_OPT_OUT] === "off") return null;',
    replace: "  return null;",
    test: "tests/sandbox_test.ts",
    filter: SANDBOX_REEXEC,
  },
  {
    id: "sandbox-worker-inherit",
    claim: "sandbox (compiled binary's worker path): the worker gets only the narrow grants",
    file: "src/cli/sandbox.ts",
    find: "deno: { permissions: workerPermissions(policy) },",
    replace: 'deno: { permissions: "inherit" },',
    test: "tests/sandbox_test.ts",
    filter: SANDBOX_WORKER,
  },
  {
    id: "sandbox-worker-full-env",
    claim: "sandbox (worker path): secrets in the environment are removed",
    file: "src/cli/sandbox.ts",
    find: "for (const k of Object.keys(env)) if (!(k in keep)) Deno.env.delete(k);",
    replace: "void keep;",
    test: "tests/sandbox_test.ts",
    filter: SANDBOX_WORKER,
  },
  {
    id: "auth-post-open",
    claim: "auth: POST / needs the bearer token",
    file: "src/mcp/http.ts",
    find: "    if (!token) return true;",
    replace: '    if (!token || req.method === "POST") return true;',
    test: "tests/mcp_http_test.ts",
    filter: "bearer token",
  },
  {
    id: "auth-prefix-token",
    claim: "auth: the token must match exactly (no prefix, no other length)",
    file: "src/mcp/http.ts",
    find: "return !!token && given.length === token.length && timingSafeEqual(given, token);",
    replace:
      "return !!token && given.length >= token.length && timingSafeEqual(given.subarray(0, token.length), token);",
    test: "tests/mcp_http_test.ts",
    filter: "bearer token",
  },
  {
    id: "http-host-unchecked",
    claim: "DNS rebinding: a foreign Host is refused",
    file: "src/mcp/http.ts",
    find: 'if (!hostAllowed(req.headers.get("host"))) {',
    replace: "if (false) {",
    test: "tests/mcp_http_test.ts",
    filter: "SDK client end to end",
  },
  {
    id: "path-prefix-sibling",
    claim: "path checks: containment is component-wise (/dev2 is not inside /dev)",
    file: "src/core/path_policy.ts",
    find: 'return c === r || c.startsWith(r + "/");',
    replace: "return c.startsWith(r);",
    test: "tests/mcp_router_test.ts",
    filter: "auto-discovery",
  },
  {
    id: "open-file-symlink-escape",
    claim: "path checks: a symlink leaving the repository is refused after realpath",
    file: "src/io/safe_open.ts",
    find:
      '    if (!isWithinRoot(canonical, real)) throw forbidden(path, "it resolves outside the repository (symlink escape)");\n    if (real === canonical)',
    replace: "    if (real === canonical)",
    test: "tests/open_file_test.ts",
  },
  {
    id: "router-allowed-roots",
    claim: "path checks: auto-discovery stays inside --allowed-root",
    file: "src/service/workspace_router.ts",
    find: "if (!real || !isWithinAnyRoot(this.options.allowedRoots, real)) {",
    replace: "if (!real) {",
    test: "tests/mcp_router_test.ts",
    filter: "auto-discovery",
  },
  {
    id: "crash-commit-per-file",
    claim: "crash safety: one write transaction per job (a killed job leaves the previous index)",
    file: "src/index/indexer.ts",
    find: "    writer.insertFile(r.rows);\n",
    replace: "    writer.insertFile(r.rows);\n    writer.commit();\n    writer.begin();\n",
    test: "tests/crash_recovery_test.ts",
    filter: "kill -9",
  },
  {
    id: "shutdown-not-interrupted",
    claim: "crash safety: a job stopped by shutdown is reported interrupted at the next start",
    file: "src/index/job_runner.ts",
    find: '          status: "interrupted",\n          error_message: "server stopped before the job finished",',
    replace: '          status: "failed",\n          error_message: "server stopped before the job finished",',
    test: "tests/mcp_stdio_e2e_test.ts",
    filter: "stdio bad input",
  },
  {
    id: "evict-waits",
    claim: "cancellation: evicting a workspace cancels its job",
    file: "src/service/workspace_router.ts",
    find: "    await this.runner.cancel(projectId);",
    replace: "    await this.runner.activeFor(projectId)?.done;",
    test: "tests/mcp_router_test.ts",
    filter: "evicts the least recently used",
  },
  {
    id: "cancel-flag-ignored",
    claim: "cancellation: the indexer stops between files when cancelled",
    file: "src/index/indexer.ts",
    find: '    if (opts.cancelled?.()) throw new CruxeError("internal_error", "index job cancelled");',
    replace: "",
    test: "tests/mcp_router_test.ts",
    filter: "evicts the least recently used",
  },
  {
    id: "limit-default-50",
    claim: "limits: search_code returns 10 results by default",
    file: "src/query/limits.ts",
    find: "  search: { default: 10, max: 100 },",
    replace: "  search: { default: 50, max: 100 },",
    test: "tests/search_code_test.ts",
    filter: "limits on more than 100",
  },
  {
    id: "limit-no-clamp",
    claim: "limits: search_code clamps limit to 100",
    file: "src/query/search_code.ts",
    find: "return parseLimit(canonicalFirst(input.limit, input.topK), DEFAULT_LIMIT, MAX_LIMIT, field);",
    replace: "return parseLimit(canonicalFirst(input.limit, input.topK), DEFAULT_LIMIT, 1000, field);",
    test: "tests/search_code_test.ts",
    filter: "limits on more than 100",
  },
  {
    id: "stdio-line-unbounded",
    claim: "limits: an over-long stdio line is refused, not buffered",
    file: "src/mcp/stdio.ts",
    find: "if (size + (end - start) > this.maxLineBytes) {",
    replace: "if (false) {",
    test: "tests/mcp_stdio_e2e_test.ts",
    filter: "stdio bad input",
  },
  {
    id: "http-body-unbounded",
    claim: "limits: an HTTP body over the cap is 413",
    file: "src/mcp/http.ts",
    find: "    bytes = await readLimited(req, MAX_BODY_BYTES);",
    replace: "    bytes = await readLimited(req, 1 << 30);",
    test: "tests/mcp_http_test.ts",
    filter: "SDK client end to end",
  },
  {
    id: "recycle-disabled",
    claim: "reliability: parse workers are recycled every N files",
    file: "src/index/worker_pool.ts",
    find:
      "        if (slot.done >= this.recycleAfter || (b?.task.facts.size ?? 0) > RECYCLE_AFTER_BYTES) this.recycle(slot);\n",
    replace: "",
    test: "tests/indexer_test.ts",
    filter: "worker pool replaces",
  },
  {
    id: "heartbeat-disabled",
    claim: "reliability: a quiet job repeats its last progress report",
    file: "src/service/progress_notifier.ts",
    find: "if (performance.now() - this.lastSent >= HEARTBEAT_MS - 125) this.report(this.lastReport);",
    replace: "void HEARTBEAT_MS;",
    test: "tests/mcp_progress_test.ts",
    filter: "heartbeat",
  },
  {
    id: "scope-no-cap",
    claim: "multi-repo: an `all` scope caps each repository at half of topK",
    file: "src/query/multi_repo.ts",
    find: 'const cap = resolved.scope.type === "all" ? input.perRepoCap ?? defaultPerRepoCap(input.topK) : undefined;',
    replace: "const cap = undefined;",
    test: "tests/multi_repo_test.ts",
    filter: "merge, per-repo cap",
  },
  {
    id: "scope-merge-by-repo",
    claim: "multi-repo: hits merge on score, not by repository order",
    file: "src/query/multi_repo.ts",
    find: "(Number(b.hit.score) || 0) - (Number(a.hit.score) || 0) || a.order - b.order ||",
    replace: "a.order - b.order || (Number(b.hit.score) || 0) - (Number(a.hit.score) || 0) ||",
    all: true,
    test: "tests/multi_repo_test.ts",
    filter: "merge, per-repo cap",
  },
  {
    id: "min-score-ignored",
    claim: "ask_code: minScore drops weaker evidence",
    file: "src/query/ask_code.ts",
    find: "    if (hit.score < minScore) continue;\n",
    replace: "",
    test: "tests/ask_code_test.ts",
    filter: "minScore on search_code",
  },
  {
    id: "metrics-label-order",
    claim: "eval: a score does not depend on the order of the labels",
    file: "scripts/eval/metrics.ts",
    find:
      "  return [...new Set(firstMatchRanks(results, targets, depth).filter((i) => i >= 0))].sort((a, b) => a - b);",
    replace: [
      "  const credited = new Set<number>();",
      "  const ranks: number[] = [];",
      "  for (let i = 0; i < Math.min(depth, results.length); i++) {",
      "    const t = targets.findIndex((t, j) => !credited.has(j) && matches(results[i], t));",
      "    if (t >= 0) (credited.add(t), ranks.push(i));",
      "  }",
      "  return ranks;",
    ].join("\n"),
    test: "scripts/eval/metrics_test.ts",
  },
  {
    id: "eval-home-no-fingerprint",
    claim: "eval: an index built by other indexing sources is rebuilt, not reused",
    file: "scripts/eval.ts",
    find: 'const usable = view.schemaStatus === "compatible" && builtWith === fingerprint;',
    replace: 'const usable = view.schemaStatus === "compatible";',
    test: "tests/search_code_test.ts",
    filter: "build fingerprint",
  },
  {
    id: "git-fsmonitor-kept",
    claim: "hostile repository: git never runs the repository's core.fsmonitor",
    file: "src/io/git.ts",
    find: '  "core.fsmonitor=false",\n',
    replace: "",
    test: "tests/hostile_git_test.ts",
    filter: "cruxe index (CLI)",
  },
  {
    id: "git-transports-allowed",
    claim: "hostile repository: git starts no transport (ssh, ext::, lazy fetch)",
    file: "src/io/git.ts",
    find: '    GIT_ALLOW_PROTOCOL: "",\n',
    replace: "",
    test: "tests/hostile_git_test.ts",
    filter: "transports are refused",
  },
  {
    id: "safe-open-follows-dirs",
    claim: "hostile repository: no read passes through a symlinked directory",
    file: "src/io/safe_open.ts",
    find:
      '    if (st.isSymlink) throw forbidden(shown, `${segs.slice(0, i + 1).join("/")} is a symlinked directory`);\n    if (!st.isDirectory) throw notFound(shown);\n',
    replace: "",
    test: "tests/open_file_test.ts",
  },
  {
    id: "safe-open-no-identity",
    claim: "hostile repository: a swap between check and open is caught (handle identity, place confirmed after)",
    file: "src/io/safe_open.ts",
    find: '    if (!handle.isFile() || !same(held, before)) throw notFound(path, "it changed while being opened");\n' +
      "    // No check that the file shares its directory's device: on an overlay file system whose layers sit on\n" +
      "    // different file systems, files report their layer's device and directories the overlay's.\n" +
      "    for (let round = 0; round < CONFIRM_ROUNDS; round++) confirmPlace(canonical, segs, abs, dirs, held, path);\n",
    replace: '    if (!handle.isFile()) throw notFound(path, "it changed while being opened");\n',
    test: "tests/open_file_race_test.ts",
  },
  {
    id: "scan-under-symlinked-dir",
    claim: "hostile repository: the scan skips files below a symlinked directory",
    file: "src/index/scan.ts",
    find: "  if (underSymlinkedDirectory(root, rel, ctx.symlinkedDirs)) {\n",
    replace: "  if (false) {\n",
    test: "tests/hostile_symlink_test.ts",
    filter: "index skips",
  },
  {
    id: "batch-served",
    claim: "protocol: a JSON-RPC batch is refused on both transports",
    file: "src/mcp/message_screen.ts",
    find: "  if (Array.isArray(raw)) {\n",
    replace: "  if (false) {\n",
    test: "tests/protocol_edges_test.ts",
    filter: "batches are refused",
  },
  {
    id: "http-no-header-timeout",
    claim: "limits: a half-sent HTTP request head is closed after the header timeout",
    file: "src/mcp/http1_server.ts",
    find: "        const timer = setTimeout(() => closeConn(conn), opts.headerTimeoutMs);\n",
    replace: "        const timer = setTimeout(() => {}, opts.headerTimeoutMs);\n",
    test: "tests/protocol_edges_test.ts",
    filter: "partial request heads",
  },
  {
    id: "http-header-count",
    claim: "limits: a head with more than 100 header fields is 431 and stalls no one",
    file: "src/mcp/http1_server.ts",
    find: "  if (lines.length - 1 > maxHeaders) throw",
    replace: "  if (lines.length < 0) throw",
    test: "tests/protocol_edges_test.ts",
    filter: "100 header fields",
  },
  {
    id: "disk-full-unclassified",
    claim: "faults: a full disk is storage_unavailable, the server stays up",
    file: "src/state/storage_errors.ts",
    find: '  [/database or disk is full|No space left on device|ENOSPC|os error 28\\b/i, "disk_full"],\n',
    replace: "",
    test: "tests/faults_test.ts",
    filter: "full disk",
  },
  {
    id: "git-alternates-used",
    claim: "hostile repository: borrowed objects (alternates, symlinks in objects/) mean plain mode",
    file: "src/io/git.ts",
    find: "  if (borrowed) return refuse(",
    replace: "  if (borrowed && false) return refuse(",
    test: "tests/hostile_git_objects_test.ts",
    filter: "borrowed objects",
  },
  {
    id: "git-ref-symlink-followed",
    claim: "hostile repository: a ref read through a symlinked ref file is refused",
    file: "src/io/git.ts",
    find: "  const linked = refFileProblem(repo.gitDir, common, ref) ?? looseObjectLink(common);",
    replace: "  const linked = looseObjectLink(common);",
    test: "tests/hostile_git_objects_test.ts",
    filter: "borrowed objects",
  },
  {
    id: "git-env-inherited",
    claim: "hostile environment: git's variables (GIT_COMMON_DIR, GIT_OBJECT_DIRECTORY, …) reach no git call",
    file: "src/io/git.ts",
    find: "    env: gitEnv(),\n    clearEnv: true,",
    replace: "    env: gitEnv(),\n    clearEnv: false,",
    test: "tests/hostile_git_objects_test.ts",
    filter: "environment variables",
  },
  {
    id: "root-swap-watched",
    claim: "hostile root: the watcher stops when the root is swapped for a symlink",
    file: "src/index/live_indexer.ts",
    find: "    const real = rootMovedTo(st.project.repo_root);\n    if (real === null) return false;",
    replace: "    const real = rootMovedTo(st.project.repo_root);\n    if (real === null || real) return false;",
    test: "tests/root_swap_test.ts",
    filter: "event watcher",
  },
  {
    id: "root-swap-scanned",
    claim: "hostile root: the scan refuses a root that now resolves elsewhere",
    file: "src/index/scan.ts",
    find: "  checkRootUnmoved(root);\n  const skipped",
    replace: "  const skipped",
    test: "tests/root_swap_test.ts",
    filter: "full scan",
  },
  {
    id: "root-swap-mid-scan",
    claim: "hostile root: a root swapped while the scan lists it refuses the scan",
    file: "src/index/scan.ts",
    find: "  checkRootUnmoved(root);\n  debug(`scan ${root}",
    replace: "  debug(`scan ${root}",
    test: "tests/root_swap_test.ts",
    filter: "while the scan lists it",
  },
  {
    id: "root-swap-served",
    claim: "hostile root: a moved root is not served until re-registered",
    file: "src/service/workspace_router.ts",
    find: "    checkRootUnmoved(project.repo_root); // a root swapped",
    replace: "    // a root swapped",
    test: "tests/root_swap_test.ts",
    filter: "event watcher",
  },
  {
    id: "auto-index-no-cap",
    claim: "limits: a diff call indexes a base ref itself only when it is near an indexed state",
    file: "src/service/tools/ref_source.ts",
    find: "    if (delta.files > AUTO_INDEX_MAX_FILES) {\n",
    replace: "    if (delta.files < 0) {\n",
    test: "tests/diff_tools_test.ts",
    filter: "far from every indexed state",
  },
  {
    id: "refs-shadowed-kept",
    claim: "references: a use another definition of the name shadows is not listed",
    file: "src/query/find_references.ts",
    find: "      if (this.shadowed(r.path, r.language, affinity)) return null;\n",
    replace: "",
    test: "tests/reference_resolution_test.ts",
  },
  {
    id: "callers-follow-callees",
    claim: "call graph: callers at depth 2 and 3 are callers of callers",
    file: "src/query/call_graph.ts",
    find: "if (!known) next.push({ row: c.caller, way });",
    replace: 'if (!known) next.push({ row: c.caller, way: "callees" });',
    test: "tests/reference_resolution_test.ts",
  },
  {
    id: "resolver-tells-outside",
    claim: "sandbox: the launcher's path resolver tells only targets inside an allowed root",
    file: "src/io/launcher_resolver.ts",
    find: "return isWithinAnyRoot(roots, real) && statSync(real).isDirectory() ? real : null;",
    replace: "return statSync(real).isDirectory() ? real : null;",
    test: "tests/cli_symlink_paths_test.ts",
    filter: "elsewhere leading",
  },
  {
    id: "ranking-no-file-name",
    claim: "ranking: a file the query names ranks first",
    file: "src/query/search/ranking_params.ts",
    find: "  pathAffinity: 0.9,",
    replace: "  pathAffinity: 0,",
    test: "tests/ranking_regression_test.ts",
    filter: "file-name weight",
  },
  {
    id: "chunk-past-last-line",
    claim: "answer truth: no answer names a line after a file's last",
    file: "src/index/chunker.ts",
    find: 'const total = source.endsWith("\\n") ? lines.length - 1 : lines.length;',
    replace: "const total = lines.length;",
    test: "tests/answer_truth_test.ts",
  },
  {
    id: "cli-line-not-matched",
    claim: "answer truth: `cruxe search` prints the matched line with its own number",
    file: "src/cli/tool_views.ts",
    find: "m ? { path: x.path, line: m.line, text: m.text }",
    replace: "m ? { path: x.path, line: x.line_start, text: m.text }",
    test: "tests/cli_test.ts",
    filter: "search prints",
  },
  {
    id: "ignore-glob-backtracks",
    claim: "hostile repo: an ignore glob is matched in linear time, whatever its stars",
    file: "src/index/glob_match.ts",
    find: "for (; n >= 0 && seen[n] !== gen; n = n === accept ? -1 : nodes[n].skip) {",
    replace: "for (; n >= 0; n = n === accept ? -1 : nodes[n].skip) {",
    test: "tests/hostile_ignore_test.ts",
    filter: "indexes the rest (plain)",
  },
  {
    id: "watch-follows-symlinks",
    claim: "hostile repo: the file watch never goes through a symlinked directory",
    file: "src/index/watch_dirs.ts",
    find: "if (!e.isDirectory || e.isSymlink) continue;",
    replace: "if (!e.isDirectory && !e.isSymlink) continue;",
    test: "tests/watch_scope_test.ts",
    filter: "never goes through a symlink",
  },
  {
    id: "sandbox-embed-net",
    claim: "sandbox: the embeddings endpoint is reachable like the LLM endpoint",
    file: "src/cli/sandbox.ts",
    find: "for (const url of [i.llmUrl, i.embedUrl]) {",
    replace: "for (const url of [i.llmUrl]) {",
    test: "tests/sandbox_test.ts",
    filter: "embeddings endpoint",
  },
  {
    id: "parent-death-ignored",
    claim: "reliability: a served process stops when its parent exits",
    file: "src/cli/parent_watch.ts",
    find: "    if (Deno.ppid === parent) return;",
    replace: "    if (Deno.ppid > 0) return;",
    test: "tests/parent_exit_test.ts",
    filter: "killing the sandbox launcher",
  },
  {
    id: "served-not-indexed",
    claim: "first run: a served workspace with no index starts indexing at start",
    file: "src/service/runtime.ts",
    find: "if (!unindexed && !interrupted && !sync.includes(p)) continue;",
    replace: "if (!sync.includes(p)) continue;",
    test: "tests/serve_first_index_test.ts",
  },
  {
    id: "refs-scan-unbounded",
    claim: "limits: one find_references call scans a bounded number of occurrences",
    file: "src/query/find_references.ts",
    find: "const MAX_SCAN = 50_000;",
    replace: "const MAX_SCAN = Infinity;",
    test: "tests/limits_above_test.ts",
    filter: "more often than one call scans",
  },
  {
    id: "call-graph-no-clamp",
    claim: "limits: get_call_graph's max_nodes is clamped to its maximum",
    file: "src/query/call_graph.ts",
    find: "CALL_GRAPH_DEFAULT_NODES, CALL_GRAPH_MAX_NODES,",
    replace: "CALL_GRAPH_DEFAULT_NODES, Infinity,",
    test: "tests/limits_above_test.ts",
    filter: "CALL_GRAPH_MAX_NODES",
  },
  {
    id: "status-html-unescaped",
    claim: "hostile repo: the status page shows names and messages as text, never as markup",
    file: "src/mcp/status_html.ts",
    find: 'return String(s ?? "").replace(/[&<>"\']/g, (c) => `&#${c.charCodeAt(0)};`);',
    replace: 'return String(s ?? "");',
    test: "src/mcp/status_html_test.ts",
    filter: "hostile text",
  },
  {
    id: "status-file-as-markup",
    claim: "hostile repo: a file opened from the status page is shown as text",
    file: "src/mcp/status_page.ts",
    find: 'd.append(el("span", n, "no"), el("span", text, "tx"));',
    replace: 'const tx = el("span", null, "tx"); tx.innerHTML = text; d.append(el("span", n, "no"), tx);',
    test: "tests/status_page_test.ts",
    filter: "first paint",
  },
  {
    id: "stdio-eof-unbounded",
    claim: "shutdown: end of input waits at most 2 s for a stuck query",
    file: "src/mcp/stdio.ts",
    find: "    const all = await Promise.race([answered, late]);",
    replace: "    const all = await answered;",
    test: "tests/stdio_eof_test.ts",
    filter: "stuck",
  },
  {
    id: "tools-set-call-gate",
    claim: "tool sets: a tool outside the chosen set is not answered",
    file: "src/service/dispatch.ts",
    find: "if (!tool || !this.enabled.has(name)) throw unknownTool(",
    replace: "if (!tool) throw unknownTool(",
    test: "tests/tool_surface_test.ts",
    filter: "--tools core",
  },
  {
    id: "launcher-all-perms",
    claim: "launcher: cruxe on PATH keeps the cruxe task's permission flags",
    file: "bin/cruxe",
    find: 'exec "$deno" run --config "$root/deno.json" $flags',
    replace: 'exec "$deno" run --config "$root/deno.json" -A',
    test: "tests/launcher_test.ts",
  },
  {
    id: "outline-page-unbounded",
    claim: "limits: a large file's outline answers a page under 8 KB",
    file: "src/query/outline_pages.ts",
    find: "if (bytes > OUTLINE_PAGE_BYTES && end > first) break;",
    replace: "if (bytes > Infinity && end > first) break;",
    test: "tests/outline_pages_test.ts",
    filter: "pages of at most 8 KB",
  },
  {
    id: "outline-drops-members",
    claim: "limits: a small file's outline is whole, members included",
    file: "src/query/outline_pages.ts",
    find: "if (first === 0 && end === order.length) return r;",
    replace: "if (first === 0 && end === order.length) return { ...r, symbols: pageTree(order, 0, r.symbols.length) };",
    test: "tests/outline_pages_test.ts",
    filter: "holds every other",
  },
  {
    id: "store-generated-refs",
    claim: "store: generated and minified files give no reference rows",
    file: "src/index/parse_worker.ts",
    find: "const occurrences = !generated && !isMinifiedSource(source);",
    replace: "const occurrences = !generated || !isMinifiedSource(source);",
    test: "tests/large_generated_test.ts",
    filter: "give no occurrences",
  },
  {
    id: "py-typed-other-kept",
    claim: "references: a Python use typed to another class's method is not listed",
    file: "src/query/find_references.ts",
    find:
      '      if (typeof owner === "number") return this.bases.derivesFrom(this.parent.id, owner) ? "candidate" : null;\n',
    replace: "",
    test: "tests/reference_resolution_test.ts",
  },
  {
    id: "py-base-is-itself",
    claim: "references: a Python base spelled like its own class is not the class itself",
    file: "src/query/_class_bases.ts",
    find: "if (b && b.id !== classId) ids.push(b.id);",
    replace: "if (b) ids.push(b.id);",
    test: "tests/reference_resolution_test.ts",
  },
  {
    id: "ts-alias-kept",
    claim: "references: `import { f as g }` makes a bare `g()` a use of `f`",
    file: "src/index/extract/ts_scope.ts",
    find: "!this.types.get(-1)?.has(leaf.text) ? name : null;",
    replace: "!this.types.get(-1)?.has(leaf.text) ? null : null;",
    test: "tests/reference_resolution_test.ts",
  },
  {
    id: "ts-param-prop-untyped",
    claim: "references: a TypeScript parameter property types `this.a` like a field",
    file: "src/index/extract/ts_scope.ts",
    find: "for (const x of names) record(this.mapOf(this.fields, cls.id), x, type);",
    replace: "for (const x of names) record(this.mapOf(this.fields, cls.id), x, null);",
    test: "tests/reference_resolution_test.ts",
  },
  {
    id: "refs-build-order",
    claim: "answer truth: a name's uses are listed by path, not by the order a build numbered its files",
    file: "src/state/read/references.ts",
    find: "  if (count <= PATH_ORDER_MAX) {",
    replace: "  if (count < 0) {",
    test: "tests/references_test.ts",
    filter: "whatever order",
  },
  {
    id: "shard-digest-unchecked",
    claim: "team replica: a shard copy whose digest is not the shard's is never opened",
    file: "src/state/pg/shards.ts",
    find: "  if (bytes !== shard.bytes || digest !== shard.digest) {",
    replace: "  if (bytes !== shard.bytes) {",
    test: "tests/pg_team_test.ts",
    filter: "does not match its digest",
  },
  {
    id: "replica-read-no-settle",
    claim: "team replica: after index_repo the session's next read waits for the publish",
    file: "src/service/team_refresh.ts",
    find: "    if (id === undefined) return null;",
    replace: "    if (id === undefined || id > 0) return null;",
    test: "tests/pg_replica_test.ts",
    filter: "after index_repo",
  },
  {
    id: "fetch-scheme-unchecked",
    claim: "team store: a URL is fetched only over https, http, ssh, git or file",
    file: "src/io/git_fetch.ts",
    find: "  if (!p) {",
    replace: "  if (!p && false) {",
    test: "tests/pg_team_test.ts",
    filter: "registered by URL",
  },
  {
    id: "pg-fault-unmapped",
    claim: "team store: PostgreSQL going away is storage_unavailable, not internal_error",
    file: "src/state/pg/pg_faults.ts",
    find: "  if (!reason) return e;",
    replace: "  if (reason || !reason) return e;",
    test: "tests/pg_team_test.ts",
    filter: "stopped under a reader",
  },
  {
    id: "pg-writer-ddl",
    claim: "team store: the writer role creates nothing in Cruxe's schema",
    file: "src/state/pg/roles.ts",
    find: '"REVOKE CREATE ON SCHEMA cruxe FROM %I",',
    replace: '"GRANT CREATE ON SCHEMA cruxe TO %I",',
    test: "tests/pg_roles_test.ts",
  },
  {
    id: "pg-claim-live-lease",
    claim: "team store: a job running under a live lease is not claimed again",
    file: "src/state/pg/sql.ts",
    find: "(j.status = 'queued' OR (j.status = 'running' AND j.lease_until < now()))",
    replace: "j.status IN ('queued', 'running')",
    test: "tests/pg_team_test.ts",
    filter: "two workers racing",
  },
  {
    id: "ts-family-ignored",
    claim: "references: a TypeScript use through an interface or base is a use of each implementation",
    file: "src/query/find_references.ts",
    find: "this.hints.family.related(owner, this.parent.id, this.sym.name);",
    replace: "false;",
    test: "tests/reference_family_test.ts",
  },
  {
    id: "ts-family-decls-dropped",
    claim: "references: a TypeScript method lists the declarations it overrides or implements and that override it",
    file: "src/query/find_references.ts",
    find: "const family = after || refKind ? [] : familyDeclarations(db, sym, limit - 1);",
    replace: "const family: SymbolRow[] = [];",
    test: "tests/reference_family_test.ts",
  },
  {
    id: "ts-super-own-class",
    claim: "call graph: TypeScript `super.m()` calls the base's `m`, never the override itself",
    file: "src/index/extract/ts_scope.ts",
    find: 'if (n.type === "super") return depth === 0 && classOf(leaf) ? "^" : null;',
    replace: 'if (n.type === "super") return depth === 0 && classOf(leaf) ? ":@" : null;',
    test: "tests/reference_family_test.ts",
  },
  {
    id: "ts-class-value-shadowed",
    claim: "references: a local that shadows a class is no use of the class (`T.m()`, `x instanceof T`)",
    file: "src/index/extract/ts_scope.ts",
    find: "return this.typeNames.has(leaf.text) && this.free(leaf) && !this.types.get(-1)?.has(leaf.text);",
    replace: "return this.typeNames.has(leaf.text);",
    test: "tests/reference_family_test.ts",
  },
  {
    id: "ts-param-prop-elsewhere",
    claim: "references: a parameter property types `x.a` read from another file",
    file: "src/query/_py_resolve.ts",
    find: "if (property) types.push(property);",
    replace: "if (property) void property;",
    test: "tests/reference_family_test.ts",
  },
  {
    id: "generated-mention",
    claim: "store: a comment that only mentions `@generated` does not make a file generated",
    file: "src/index/generated.ts",
    find: "(Code generated .* DO NOT EDIT\\.?\\s*(\\*\\/)?\\s*$|@generated\\b)/m;",
    replace: "(Code generated .* DO NOT EDIT\\.?\\s*(\\*\\/)?\\s*$)|@generated\\b/m;",
    test: "tests/reference_family_test.ts",
  },
  {
    id: "module-callee-candidate",
    claim: "call graph: `mod.f()` through a module or its alias is a resolved callee",
    file: "src/query/call_graph.ts",
    find: "        resolution = judged;\n",
    replace: "        void judged;\n",
    test: "tests/reference_resolution_test.ts",
  },
  {
    id: "py-or-fallback-untyped",
    claim: "references: Python `self.a = q or T()` types `self.a` as a `T`",
    file: "src/index/extract/py_scope.ts",
    find: 'if (n?.type === "boolean_operator" && n.children.some((c) => c?.type === "or")) {',
    replace: 'if (n?.type === "boolean_operator" && n.children.some((c) => c?.type === "nor")) {',
    test: "tests/reference_family_test.ts",
  },
  {
    id: "py-held-class-ignored",
    claim: "references: Python `self.a = self.a_class()` with `a_class = T` types `self.a` as a `T`",
    file: "src/query/_py_resolve.ts",
    find: "if (held) return this.classOf(held[1], m!.path, null, depth + 1);",
    replace: "if (held) return null;",
    test: "tests/reference_family_test.ts",
  },
  {
    id: "py-self-callee-unresolved",
    claim: "call graph: Python `self.m()` calls the nearest base's `m`",
    file: "src/query/call_graph.ts",
    find: "owner = cls === null ? undefined : shared.bases.ownerOf(cls, r.name);",
    replace: "owner = undefined;",
    test: "tests/reference_family_test.ts",
  },
  {
    id: "bare-callee-method",
    claim: "call graph: a bare call is never a method (a builtin `set()` is not `Store.set`)",
    file: "src/query/call_graph.ts",
    find: "const judged = this.judgeOf(t.row).judge(r);",
    replace: "const judged = resolution;",
    test: "tests/reference_family_test.ts",
  },
  {
    id: "class-callees-all-methods",
    claim: "call graph: a class calls what its constructor calls, not what its methods do",
    file: "src/query/call_graph.ts",
    find: "if (isClass && !this.inConstruction(r.source_id, sym.id)) continue;",
    replace: "if (isClass && !this.inConstruction(r.source_id, sym.id)) void 0;",
    test: "tests/reference_family_test.ts",
  },
  {
    id: "py-package-reexport-ignored",
    claim: "references: Python `pkg.f` where the package's `__init__` imports `f` from its module",
    file: "src/query/find_references.ts",
    find: 'if (sym.parent_id === null && sym.kind !== "method" && this.packageExports(r.qualifier, r.path)) {',
    replace: 'if (sym.parent_id === null && sym.kind !== "method" && false) {',
    test: "tests/reference_family_test.ts",
  },
  {
    id: "chunk-digest-unchecked",
    claim: "answer truth: a file changed since indexing never gives its new text as a chunk's",
    file: "src/state/read/chunk_text.ts",
    find: 'if (createHash("sha1").update(bytes).digest("hex") !== want.hash) return null;',
    replace: 'if (createHash("sha1").update(bytes).digest("hex") === "") return null;',
    test: "tests/chunk_text_test.ts",
    filter: "chunk text comes from the file",
  },
  {
    id: "chunk-changed-size-kept",
    claim: "answer truth: the chunks of a file whose size changed are left out of a list",
    file: "src/state/read/chunk_text.ts",
    find: "return load(c, path, want) !== null;",
    replace: "return true;",
    test: "tests/chunk_text_test.ts",
    filter: "chunk text comes from the file",
  },
  {
    id: "ref-seed-text-left",
    claim: "answer truth: a refs store seeded from the working tree holds its chunks' text",
    file: "src/index/ref_index.ts",
    find: "    storeSeedChunkText(p);\n",
    replace: "",
    test: "tests/chunk_text_test.ts",
    filter: "a ref's chunks keep their text",
  },
  {
    id: "workers-default-extra",
    claim: "index memory: parse workers default to one per core, not one more",
    file: "src/core/config.ts",
    find: "return Math.max(2, Math.min(4, cores));",
    replace: "return Math.max(2, Math.min(4, cores + 1));",
    test: "tests/config_keys_test.ts",
    filter: "parse workers default",
  },
  {
    id: "v8-young-gen-unbounded",
    claim: "index memory: cruxe runs with its young generation bounded",
    file: "deno.json",
    find:
      '"deno run --v8-flags=--max-semi-space-size=8,--heap-growing-percent=20 --allow-read --allow-write --allow-env --allow-run --allow-net --allow-sys main.ts"',
    replace: '"deno run --allow-read --allow-write --allow-env --allow-run --allow-net --allow-sys main.ts"',
    test: "tests/assets_test.ts",
    filter: "share the V8 flags",
  },
  {
    id: "v8-old-gen-unbounded",
    claim: "index memory: cruxe runs with old-generation growth bounded",
    file: "scripts/compile.ts",
    find: ',--heap-growing-percent=20"];',
    replace: '"];',
    test: "tests/assets_test.ts",
    filter: "share the V8 flags",
  },
  {
    id: "bulk-cache-unbounded",
    claim: "index memory: a bulk load inserts rows with a smaller cache",
    file: "src/state/project_index.ts",
    find: "    this.db.exec(`PRAGMA cache_size=-${BULK_ROWS_CACHE_KIB}`);\n",
    replace: "",
    test: "tests/bulk_memory_test.ts",
    filter: "half the writer's page cache",
  },
  {
    id: "occ-hint-not-unpacked",
    claim: "references: occurrences packed for the writer come back with their hints",
    file: "src/index/occurrence_wire.ts",
    find: "    if (hint >= 0) o.hint = strings[hint];\n",
    replace: "",
    test: "src/index/occurrence_wire_test.ts",
    filter: "packed occurrences",
  },
  {
    id: "parsers-kept-to-publish",
    claim: "index memory: parse workers go before the writer's merges and index builds",
    file: "src/index/indexer.ts",
    find: "    if (opts.pool) pool.shrink(1);\n    else pool.close();\n",
    replace: "",
    test: "tests/parse_window_test.ts",
    filter: "parse workers go",
  },
  {
    id: "symbol-key-null-spelled",
    claim: "answer truth: a use outside any symbol has no enclosing handle (not a bare `sym_`)",
    file: "src/state/symbol_keys.ts",
    find: "`'sym_' || lower(nullif(hex(${col}), ''))`",
    replace: "`'sym_' || lower(hex(${col}))`",
    test: "tests/bulk_load_test.ts",
    filter: "upgrades to handle keys",
  },
  {
    id: "symbol-key-any-case",
    claim: "answer truth: a symbol is found by its handle's own spelling only",
    file: "src/state/symbol_keys.ts",
    find: 'for (let i = 0; i < 16; i++) NIBBLE["0123456789abcdef".charCodeAt(i)] = i;',
    replace: 'for (let i = 0; i < 22; i++) NIBBLE["0123456789abcdefABCDEF".charCodeAt(i)] = i < 16 ? i : i - 6;',
    test: "tests/bulk_load_test.ts",
    filter: "upgrades to handle keys",
  },
  {
    id: "word-code-unlisted-lost",
    claim: "answer truth: a kind or visibility with no code is kept and read back as itself",
    file: "src/state/coded_words.ts",
    find: "return i < 0 ? word : String(i);",
    replace: "return String(i);",
    test: "tests/coded_words_test.ts",
  },
  {
    id: "qualifier-any-suffix",
    claim: "answer truth: only a name qualified by a dot is kept as its qualifier (`ns::add` stays whole)",
    file: "src/state/project_index.ts",
    find: 'if (qualified.endsWith("." + name))',
    replace: "if (qualified.endsWith(name))",
    test: "tests/bulk_load_test.ts",
    filter: "upgrades to handle keys",
  },
  {
    id: "parent-index-children-left",
    claim: "answer truth: the index of symbols by parent holds every symbol that has one",
    file: "src/state/schema.ts",
    find: '"symbol_rows(parent_id) WHERE parent_id IS NOT NULL"',
    replace: '"symbol_rows(parent_id) WHERE parent_id > 3"',
    test: "tests/bulk_load_test.ts",
    filter: "upgrades to handle keys",
  },
  {
    id: "file-range-join-loose",
    claim: "answer truth: a file's rows are its own even where its id range holds other files' rows",
    file: "src/state/schema.ts",
    find: "? `f.id = +${r}.file_id AND ${r}.id BETWEEN",
    replace: "? `${r}.id BETWEEN",
    test: "tests/bulk_load_test.ts",
    filter: "found by its id ranges",
  },
  {
    id: "file-range-delete-loose",
    claim: "reliability: a sync deletes only the changed file's rows, whatever its id range holds",
    file: "src/state/project_index.ts",
    find: "\n    AND file_id = ?1`;",
    replace: "`;",
    test: "tests/bulk_load_test.ts",
    filter: "found by its id ranges",
  },
  {
    id: "name-text-placeholder-kept",
    claim: "answer truth: a signature or doc holding the name's placeholder character reads back unchanged",
    file: "src/state/name_in_text.ts",
    find: "  if (text.includes(PLACEHOLDER)) return utf8.encode(text);\n",
    replace: "",
    test: "tests/name_in_text_test.ts",
  },
  {
    id: "refs-left-unpacked",
    claim: "store size: a cold bulk load leaves the references in full pages",
    file: "src/state/project_index.ts",
    find: "    this.packRefs();\n",
    replace: "",
    test: "tests/bulk_load_test.ts",
    filter: "packs the references",
  },
  {
    id: "suggest-spellings-twice",
    claim: "query cost: a missing name's close spellings are looked up once",
    file: "src/query/_suggest_symbols.ts",
    find: "known?.leaf === leaf ? known.names.slice(0, n) : fuzzyNames(db, leaf, n)",
    replace: "fuzzyNames(db, leaf, n)",
    test: "tests/name_lookup_test.ts",
    filter: "a missing name",
  },
  {
    id: "suggest-common-words-kept",
    claim: "answer truth: suggestions rank a missing name's rare words, not common ones",
    file: "src/query/_suggest_symbols.ts",
    find: "if (rare.length) return anyOf(rare);",
    replace: "if (rare.length) return anyOf(uniq);",
    test: "tests/name_lookup_test.ts",
    filter: "a missing name",
  },
  {
    id: "suggest-absent-word-rare",
    claim: "answer truth: a word no definition carries never narrows the suggestions",
    file: "src/query/_suggest_symbols.ts",
    find: "const rare = held.filter((w) => counts.get(w)! <= COMMON_WORD_DEFINITIONS);",
    replace: "const rare = uniq.filter((w) => counts.get(w)! <= COMMON_WORD_DEFINITIONS);",
    test: "tests/name_lookup_test.ts",
    filter: "a missing name",
  },
  {
    id: "suggest-common-words-any",
    claim: "answer truth: a missing name of common words needs them all",
    file: "src/query/_suggest_symbols.ts",
    find: "return held.length < 2 ? anyOf(uniq) : allOf(held);",
    replace: "return held.length < 2 ? anyOf(uniq) : anyOf(held);",
    test: "tests/name_lookup_test.ts",
    filter: "all common",
  },
  {
    id: "short-scan-despite-prefix",
    claim: "query cost: a short name with completions skips the all-names scan",
    file: "src/query/locate_symbol.ts",
    find: "const lastResort = candidates.length === 0;",
    replace: "const lastResort = true;",
    test: "tests/name_lookup_test.ts",
    filter: "prefix completions is not compared",
  },
  {
    id: "c-annotation-as-name",
    claim: "answer truth: `static int __init f(void)` defines f, not void",
    file: "src/index/languages/c_family.ts",
    find: '  separator: ".",\n  parseText: blankAnnotations,\n',
    replace: '  separator: ".",\n',
    test: "tests/languages_test.ts",
    filter: "annotation macros",
  },
  {
    id: "c-annotation-define-blanked",
    claim: "answer truth: `#define __init …` still defines __init",
    file: "src/index/languages/c_family.ts",
    find: "const inDirective: boolean = directive || /^\\s*#/.test(line);",
    replace: "const inDirective: boolean = false;",
    test: "tests/languages_test.ts",
    filter: "annotation macros",
  },
  {
    id: "c-annotation-in-attribute",
    claim: "answer truth: `__attribute__((noinline))` keeps its words",
    file: "src/index/languages/c_family.ts",
    find: "`__attribute__\\\\s*\\\\(\\\\((?:[^()]|\\\\([^()]*\\\\))*\\\\)\\\\)|\\\\b(?:",
    replace: "`\\\\b(?:",
    test: "tests/languages_test.ts",
    filter: "annotation macros",
  },
  {
    id: "not-indexed-unexplained",
    claim: "answer truth: a path the index lacks says why the working tree's file is not there",
    file: "src/service/dispatch.ts",
    find: "throw explainNotIndexed(err, (path) => rt.live.explainAbsent(route.project, path));",
    replace: "throw err;",
    test: "tests/not_indexed_test.ts",
    filter: "says why",
  },
  {
    id: "not-indexed-past-symlink",
    claim: "hostile input: nothing past a symlinked directory is looked at to explain a path",
    file: "src/index/unindexed_reason.ts",
    find: 'if (underSymlinkedDirectory(root, rel, new Map())) return "symlink";',
    replace: "",
    test: "tests/not_indexed_test.ts",
    filter: "past a symlink",
  },
  {
    id: "not-indexed-other-paths",
    claim: "answer truth: an existing file the index lacks is not answered with other paths",
    file: "src/service/not_indexed.ts",
    find: "return new CruxeError(err.code, message, { path, reason });",
    replace: "return new CruxeError(err.code, message, { ...err.data, reason });",
    test: "tests/not_indexed_test.ts",
    filter: "says why",
  },
  {
    id: "related-name-only-calls",
    claim: "answer truth: find_related_symbols lists resolved calls, not name-only matches",
    file: "src/query/call_graph.ts",
    find: "const graph = new CallGraphBuilder(db, maxCallers + 1, false);",
    replace: "const graph = new CallGraphBuilder(db, maxCallers + 1, true);",
    test: "tests/related_calls_test.ts",
    filter: "resolved calls only",
  },
  {
    id: "related-go-by-name",
    claim: "answer truth: Go related calls are judged like the call graph's, not by name",
    file: "src/query/related_symbols.ts",
    find: 'const JUDGED_CALL_LANGUAGES = new Set([...HINTED_LANGUAGES, "go"]);',
    replace: "const JUDGED_CALL_LANGUAGES = new Set([...HINTED_LANGUAGES]);",
    test: "tests/related_calls_test.ts",
    filter: "related calls in Go",
  },
  {
    id: "related-cli-call-line",
    claim: "answer truth: `cruxe related` prints a symbol at its own line, not the call's",
    file: "src/cli/tool_views.ts",
    find: "line: x.line_start ?? x.line ?? 1,",
    replace: "line: x.line ?? x.line_start,",
    test: "tests/related_calls_test.ts",
    filter: "definition's line",
  },
  {
    id: "rules-version-ignored",
    claim: "answer truth: new extraction rules reach an existing store",
    file: "src/index/indexer.ts",
    find: "const kept = withoutLanguages(previous, stale);",
    replace: "const kept = previous;",
    test: "tests/rules_version_test.ts",
    filter: "parses again",
  },
  {
    id: "rules-version-no-rebuild",
    claim: "index cost: new rules for most files rebuild the index whole",
    file: "src/index/indexer.ts",
    find: "const rebuild = previous.size > 0 && (opts.force || (!scan.absent && kept.size * 2 < previous.size));",
    replace: "const rebuild = previous.size > 0 && opts.force;",
    test: "tests/rules_version_test.ts",
    filter: "rebuild it whole",
  },
  {
    id: "rules-version-unrecorded",
    claim: "index cost: a store records the rules it was built with",
    file: "src/index/indexer.ts",
    find: "    writer.setMeta(RULES_VERSIONS, JSON.stringify(rulesVersions()));\n",
    replace: "",
    test: "tests/rules_version_test.ts",
    filter: "parses again",
  },
  {
    id: "capped-ranking-scored-whole",
    claim: "query cost: a ranking past its row cap scores only CAPPED_SCAN_ROWS matches",
    file: "src/state/read/search.ts",
    find: "LIMIT ${past ? CAPPED_SCAN_ROWS : RANK_SCAN_ROWS}) ORDER BY r LIMIT ?",
    replace: "LIMIT ${RANK_SCAN_ROWS}) ORDER BY r LIMIT ?",
    test: "tests/name_lookup_test.ts",
    filter: "past its row cap",
  },
  {
    id: "prefix-lengths-to-longest",
    claim: "query cost: prefix completions counted whole are sorted in one read, not read length by length",
    file: "src/state/name_lookup.ts",
    find: "  if (Number(sum.n) > 0 && max > 0 && !capped) {\n",
    replace: "  if (Number(sum.n) > 0 && max > 0 && !capped && false) {\n",
    test: "tests/name_lookup_test.ts",
    filter: "sorted in one read",
  },
  {
    id: "prefix-partial-index-unused",
    claim: "query cost: a capped prefix reads its short completions through the partial length index",
    file: "src/state/name_lookup.ts",
    find: "WHERE len = ? AND len <= ${INDEXED_NAME_LEN}\n",
    replace: "WHERE len = ?\n",
    test: "tests/name_lookup_test.ts",
    filter: "partial indexes",
  },
  {
    id: "prefix-long-names-dropped",
    claim: "answer truth: a capped prefix with few short completions gets its longer ones too",
    file: "src/state/name_lookup.ts",
    find: "    if (names.length < max) {\n",
    replace: "    if (false) {\n",
    test: "tests/name_lookup_test.ts",
    filter: "short, long or both",
  },
  {
    id: "known-count-filter-ignored",
    claim: "answer truth: a filtered ranking is capped only when its own matches pass the cap",
    file: "src/state/read/search.ts",
    find: "const whole = from === fts;",
    replace: "const whole = true;",
    test: "tests/name_lookup_test.ts",
    filter: "match count is known",
  },
  {
    id: "match-count-vocab-lower",
    claim: "answer truth: vocabulary counts (deleted chunks included) are never a lower bound",
    file: "src/query/search/plan.ts",
    find: 'atLeast: stats.counts === "matches" ? Math.max(0, ...exact) : 0',
    replace: "atLeast: Math.max(0, ...exact)",
    test: "tests/name_lookup_test.ts",
    filter: "planner's match counts",
  },
  {
    id: "name-grams-delete-wrong",
    claim: "answer truth: a name gone from the index leaves no trigram behind",
    file: "src/state/name_lookup.ts",
    find: "this.grams.remove(Number(row.id), gramText(nameLower));",
    replace: 'this.grams.remove(Number(row.id), "^$");',
    test: "tests/name_lookup_test.ts",
    filter: "follow every sync",
  },
  {
    id: "handle-prefix-only",
    claim: "answer truth: handles sharing the indexed key prefix are told apart by the whole key",
    file: "src/state/symbol_keys.ts",
    find: '\n    AND ${idCol} IN (${params.map(SYMBOL_ID_SQL).join(", ")})`;',
    replace: "`;",
    test: "tests/bulk_load_test.ts",
    filter: "told apart",
  },
  {
    id: "edge-target-by-lower-only",
    claim: "answer truth: edge targets differing only in case stay apart",
    file: "src/state/project_index.ts",
    find: '= ? AND name = ?"),',
    replace: '= ? AND ?2 IS NOT NULL"),',
    test: "tests/bulk_load_test.ts",
    filter: "kept once per spelling",
  },
  {
    id: "symbol-span-as-end",
    claim: "answer truth: a symbol's last line reads back as indexed",
    file: "src/state/project_index.ts",
    find: "    sym.lineEnd - sym.lineStart,\n",
    replace: "    sym.lineEnd,\n",
    test: "tests/bulk_load_test.ts",
    filter: "schema 7",
  },
  {
    id: "migrate-temp-in-memory",
    claim: "upgrade memory: a table-rewriting upgrade journals to files, not memory",
    file: "src/state/schema.ts",
    find: '  if (upgrade) db.exec("PRAGMA temp_store=FILE");\n',
    replace: "",
    test: "tests/migrate_atomic_test.ts",
    filter: "temporary storage",
  },
  {
    id: "watch-rules-kept-stale",
    claim: "live index: a changed .gitignore changes what the watch reports at once",
    file: "src/index/watch_filter.ts",
    find: "      this.perDir.delete(dir);\n      this.stacks.clear();\n",
    replace: "      this.perDir.delete(dir);\n",
    test: "tests/watch_start_test.ts",
    filter: "kept rules follow",
  },
  {
    id: "walk-before-first-answer",
    claim: "first call: a watch's walk waits for the server's first answer",
    file: "src/index/live_indexer.ts",
    find: "    if (!this.answeredOnce && this.options.walkDeferMs !== 0) {",
    replace: "    if (this.answeredOnce && !this.answeredOnce) {",
    test: "tests/live_index_test.ts",
    filter: "first answer, then",
  },
  {
    id: "walk-defer-unbounded",
    claim: "first call: a watch's walk starts by its deadline when no call comes",
    file: "src/index/live_indexer.ts",
    find: "    await Promise.race([this.firstAnswer.promise, deadline]);",
    replace: "    await Promise.race([this.firstAnswer.promise]);",
    test: "tests/live_index_test.ts",
    filter: "starts by its deadline",
  },
  {
    id: "skip-verdict-forgotten",
    claim: "sync cost: a file read and left out is not read again while its stat holds",
    file: "src/index/skip_verdicts.ts",
    find: "  return v && v.stat === statOf(f) ? v.verdict : null;",
    replace: "  return v && v.stat === statOf(f) && !v ? v.verdict : null;",
    test: "tests/skip_verdicts_test.ts",
    filter: "left out",
  },
  {
    id: "script-reread",
    claim: "sync cost: an unchanged script indexed by its #! line is not read again",
    file: "src/index/indexer.ts",
    find: "    const judged = language !== undefined || !hasExtension(f.path);",
    replace: "    const judged = language !== undefined;",
    test: "tests/skip_verdicts_test.ts",
    filter: "left out",
  },
  {
    id: "name-grams-chunks-part-full",
    claim: "kernel queries: trigram lists built whole fill their chunks",
    file: "src/state/name_grams.ts",
    find: "const p = packers[code] ??= new ChunkPacker();",
    replace: "const p = packers[code] ??= new ChunkPacker(CHUNK_BYTES / 2);",
    test: "tests/name_grams_test.ts",
    filter: "packed trigram lists",
  },
  {
    id: "build-files-read",
    claim: "sync cost: build files named without an extension are never read",
    file: "src/index/indexer.ts",
    find: '  return !hasExtension(path) && !BUILD_FILE_NAMES.has(path.slice(path.lastIndexOf("/") + 1));',
    replace: "  return !hasExtension(path);",
    test: "tests/skip_verdicts_test.ts",
    filter: "left out",
  },
  {
    id: "watch-start-blocks",
    claim: "first call: a large tree's watch starts without holding calls up",
    file: "src/index/watcher.ts",
    find: 'await watchDirectoriesAsync(root, filter, "", readDir);',
    replace: "watchDirectories(root, filter);",
    test: "tests/watch_start_test.ts",
    filter: "lets other work run",
  },
  {
    id: "first-call-waits-warm",
    claim: "first call: a call while the first query worker loads does not wait for it",
    file: "src/service/dispatch.ts",
    find: "    if (this.rt.readerPool.warming) return null;\n",
    replace: "",
    test: "tests/first_query_test.ts",
    filter: "still loads",
  },
  {
    id: "glob-prefilter-strict",
    claim: "ignore rules: the literal check before a glob's automaton keeps every path below a match",
    file: "src/index/glob_match.ts",
    find: "!path.endsWith(n.tail) && !path.includes(n.tailDir)",
    replace: "!path.endsWith(n.tail)",
    test: "src/index/glob_match_test.ts",
    filter: "literal checks",
  },
  {
    id: "split-acronym-whole",
    claim: "search terms: an acronym before a word is split from it (HTTPServer is http, server)",
    file: "src/core/identifiers.ts",
    find: "        if (j - i >= 2) j--;",
    replace: "        if (j - i >= 2) j += 0;",
    test: "src/core/identifiers_test.ts",
    filter: "regular expressions that define it",
  },
  {
    id: "callee-ascii-only",
    claim: "answer truth: a call of a non-ASCII name is an edge to the whole name",
    file: "src/index/extract/engine.ts",
    find: "/([\\p{ID_Start}_$][\\p{ID_Continue}$!?]*)\\s*$/u",
    replace: "/([A-Za-z_$][A-Za-z0-9_$!?]*)\\s*$/",
    test: "tests/non_ascii_names_test.ts",
  },
  {
    id: "repack-renamed-refs",
    claim: "reliability: index --force over a bulk-loaded store rebuilds it (the packed table was renamed in)",
    file: "src/state/project_index.ts",
    find: '/^CREATE TABLE (?:"refs"|refs\\b)/',
    replace: "/^CREATE TABLE refs\\b/",
    test: "tests/bulk_load_test.ts",
    filter: "forced rebuild of a bulk-loaded store",
  },
  {
    id: "file-join-auto-index",
    claim: "latency: reading a directory's rows never builds an index over every row first",
    file: "src/state/schema.ts",
    find: "f.id = +${r}.file_id",
    replace: "f.id = ${r}.file_id",
    test: "tests/query_plans_test.ts",
  },
  {
    id: "handles-shortened-unchecked",
    claim: "reliability: an upgraded symbol row keeps handles the view would not spell the same",
    file: "src/state/schema.ts",
    find: 'AND ${spelledStableIdSql("s", "f", v)} = ${STABLE_ID_SQL("s.stable_key")}',
    replace: "",
    test: "tests/bulk_load_test.ts",
    filter: "schema 17 upgrades to handles spelled",
  },
  {
    id: "ref-source-absolute",
    claim: "references: the enclosing symbol is read back from its place among its file's symbols",
    file: "src/state/schema.ts",
    find: "`${f}.sym_lo + ${r}.source_id`",
    replace: "`${r}.source_id`",
    test: "tests/bulk_load_test.ts",
    filter: "schema 18 upgrades",
  },
  {
    id: "name-key-only",
    claim: "lookup: names that share a name key are told apart by the name",
    file: "src/state/name_key.ts",
    find: "`${keyCol} = ? AND ${col} = ?`",
    replace: "`${keyCol} = ? AND ? IS NOT NULL`",
    test: "tests/bulk_load_test.ts",
    filter: "schema 20 upgrades",
  },
  {
    id: "names-after-indexes",
    claim: "store size: a cold load's index builds reuse the pages the name tables' rebuild frees",
    file: "src/state/project_index.ts",
    find: "    this.names.publish();\n    this.db.exec(createSecondaryIndexesSql());",
    replace: "    this.db.exec(createSecondaryIndexesSql());",
    test: "tests/bulk_load_test.ts",
    filter: "no free pages",
  },
  {
    id: "handles-spelled-unchecked",
    claim: "lookup: a symbol whose texts do not read back as written keeps the handles it is shown with",
    file: "src/state/symbol_keys.ts",
    find: "return texts.every((t) => t.isWellFormed());",
    replace: "return texts.length > 0;",
    test: "tests/bulk_load_test.ts",
    filter: "cut inside a character",
  },
  {
    id: "gram-tally-cut-unsorted",
    claim: "answer truth: fuzzy candidates cut inside a level are that level's smallest ids",
    file: "src/state/gram_tally.ts",
    find: "  atLevel.sort();\n",
    replace: "",
    test: "src/state/gram_tally_test.ts",
    filter: "typed counting picks",
  },
  {
    id: "gram-tally-cap-unsaid",
    claim: "answer truth: a trigram list past its cap marks the fuzzy answer capped",
    file: "src/state/gram_tally.ts",
    find: "  return list.length > cap;\n",
    replace: "  return false;\n",
    test: "src/state/gram_tally_test.ts",
    filter: "typed counting picks",
  },
  {
    id: "name-grams-first-edit-wins",
    claim: "answer truth: a freed name id taken again is listed under the new name's trigrams only",
    file: "src/state/name_grams.ts",
    find: "      ids.set(id, listed);\n",
    replace: "      if (!ids.has(id)) ids.set(id, listed);\n",
    test: "tests/name_grams_test.ts",
    filter: "packed trigram lists",
  },
  {
    id: "name-grams-split-keys",
    claim: "answer truth: a trigram chunk split by a sync keeps its ids in order",
    file: "src/state/name_grams.ts",
    find: "put.run(k === 0 ? key : base + c.lo, c.bytes)",
    replace: "put.run(key + k, c.bytes)",
    test: "tests/name_grams_test.ts",
    filter: "packed trigram lists",
  },
  {
    id: "name-grams-wide-gaps",
    claim: "answer truth: trigram ids further apart than 2^24 decode whole",
    file: "src/state/name_grams.ts",
    find: "const v = w <= 24\n",
    replace: "const v = w <= 31\n",
    test: "tests/name_grams_test.ts",
    filter: "packed trigram lists",
  },
  {
    id: "name-grams-cap-unread",
    claim: "answer truth: a trigram with more names than its share marks the fuzzy answer capped",
    file: "src/state/name_lookup.ts",
    find: "tallyIds(firstIdsOf(db, g, cap + 1), cap,",
    replace: "tallyIds(firstIdsOf(db, g, cap), cap,",
    test: "tests/name_grams_test.ts",
    filter: "FTS5 table's",
  },
  {
    id: "name-grams-aside-unread",
    claim: "answer truth: trigram edits kept aside are merged into every read",
    file: "src/state/name_grams.ts",
    find: "return edits.length ? edited(out.subarray(0, size), edits, want) : out.subarray(0, size);",
    replace: "return out.subarray(0, Math.min(size, want));",
    test: "tests/name_grams_test.ts",
    filter: "packed trigram lists",
  },
  {
    id: "name-grams-removed-short",
    claim: "answer truth: a trigram's first ids are read past the ids edits take out",
    file: "src/state/name_grams.ts",
    find: "const read = want + edits.filter((e) => !e[1]).length;",
    replace: "const read = want;",
    test: "tests/name_grams_test.ts",
    filter: "packed trigram lists",
  },
  {
    id: "common-terms-net-ignored",
    claim: "answer truth: a recorded term count settles a bound only net of the deletions since",
    file: "src/state/read/search.ts",
    find: "if (recorded - k.deleted >= at) return at;",
    replace: "if (recorded >= at) return at;",
    test: "tests/common_terms_test.ts",
    filter: "same bounded counts",
  },
  {
    id: "common-terms-dels-uncounted",
    claim: "answer truth: every chunk row a sync deletes is added to the deletion count",
    file: "src/state/project_index.ts",
    find: "if (chunks > 0) s.noteChunksDeleted.run(chunks);",
    replace: "",
    test: "tests/common_terms_test.ts",
    filter: "same bounded counts",
  },
  {
    id: "common-terms-prefix-gross",
    claim: "answer truth: a prefix is too common by recorded counts only net of deletions",
    file: "src/state/read/search.ts",
    find: "sure += Math.max(0, recorded - k.deleted);",
    replace: "sure += recorded;",
    test: "tests/common_terms_test.ts",
    filter: "same bounded counts",
  },
  {
    id: "common-terms-unread",
    claim: "kernel queries: a term recorded as common is not counted from its postings",
    file: "src/state/read/search.ts",
    find: "const k = PLAIN_TOKEN.test(term) ? common() : null;",
    replace: "const k = null as CommonTerms | null;",
    test: "tests/common_terms_test.ts",
    filter: "without reading its postings",
  },
  {
    id: "edge-count-case-sensitive",
    claim: "answer truth: a name's use count from the target index is case-insensitive",
    file: "src/state/read/edges.ts",
    find: "WHERE target_id IN (SELECT id FROM edge_targets WHERE coalesce(name_lower, lower(name)) = ?)",
    replace: "WHERE target_id IN (SELECT id FROM edge_targets WHERE name = ?)",
    test: "tests/edge_counts_test.ts",
  },
  {
    id: "c-typedef-first-name-only",
    claim: "lookup: a C typedef defines every name it declares (`} MSG, *PTR_MSG;`)",
    file: "src/index/languages/c_family.ts",
    find: 'n.childrenForFieldName("declarator").map(',
    replace: 'n.childrenForFieldName("declarator").slice(0, 1).map(',
    test: "tests/languages_test.ts",
    filter: "every name it declares",
  },
];

const ROOT = new URL("../", import.meta.url).pathname.replace(/\/$/, "");
const LINKED = new Set(["node_modules", "grammars"]);
const SKIPPED = new Set([".git", "dist", ".cruxe-test"]);
/** The test task's flags: the ones the suite spawns Cruxe with, without type checking. */
const TEST_FLAGS = ["--no-check", ...CRUXE_FLAGS];

/** A scratch copy of the checkout; returns its path. */
function scratchCopy(): string {
  const dir = Deno.makeTempDirSync({ prefix: "cruxe-mutant-" });
  for (const e of Deno.readDirSync(ROOT)) {
    if (SKIPPED.has(e.name)) continue;
    const from = join(ROOT, e.name);
    if (LINKED.has(e.name)) Deno.symlinkSync(Deno.realPathSync(from), join(dir, e.name));
    else {
      const cp = new Deno.Command("cp", { args: ["-r", from, join(dir, e.name)] }).outputSync();
      if (!cp.success) throw new Error(`cp ${from}: ${new TextDecoder().decode(cp.stderr)}`);
    }
  }
  return dir;
}

/** Applies a mutation in `dir`; false when its text is not found exactly as expected (stale). */
function apply(dir: string, m: Mutation): boolean {
  const path = join(dir, m.file);
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch {
    return false;
  }
  const count = text.split(m.find).length - 1;
  if (count === 0 || (count > 1 && !m.all)) return false;
  Deno.writeTextFileSync(path, text.split(m.find).join(m.replace));
  return true;
}

/** Runs a test in `dir`; "passed", "failed" or "timeout", with the output tail. */
async function runTest(dir: string, m: Pick<Mutation, "test" | "filter">, timeoutMs: number) {
  const args = ["test", ...TEST_FLAGS, ...(m.filter ? ["--filter", m.filter] : []), m.test];
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: dir,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
  }, timeoutMs);
  const out = await child.output();
  clearTimeout(timer);
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  const ran = /(\d+) passed/.exec(text);
  const outcome = timedOut ? "timeout" : out.success ? "passed" : "failed";
  // Why it failed: the first error line and the line after it (an assertion's message), to check it is the
  // behaviour that broke and not, say, a syntax error the mutation introduced.
  const lines = text.split("\n");
  const at = lines.findIndex((l) => /^error: /.test(l.trim()) && !/Test failed/.test(l));
  const why = at >= 0 ? lines.slice(at, at + 2).map((l) => l.trim()).join(" ").slice(0, 160) : "";
  return { outcome, ran: ran ? Number(ran[1]) : 0, why, tail: lines.slice(-12).join("\n") };
}

async function main() {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      only: { type: "string" },
      list: { type: "boolean", default: false },
      "no-baseline": { type: "boolean", default: false },
      timeout: { type: "string", default: "300" },
    },
  });
  const only = values.only ? new Set(values.only.split(",")) : null;
  const chosen = MUTATIONS.filter((m) => !only || only.has(m.id));
  if (values.list) {
    for (const m of chosen) console.log(`${m.id}\t${m.file}\t${m.test}${m.filter ? ` --filter "${m.filter}"` : ""}`);
    return;
  }
  const timeoutMs = Number(values.timeout) * 1000;
  let bad = 0;
  if (!values["no-baseline"]) {
    const base = scratchCopy();
    try {
      const seen = new Set<string>();
      for (const m of chosen) {
        const key = `${m.test}|${m.filter ?? ""}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const r = await runTest(base, m, timeoutMs);
        const ok = r.outcome === "passed" && r.ran > 0;
        console.log(`baseline ${ok ? "passes" : "FAILS"}: ${m.test}${m.filter ? ` --filter "${m.filter}"` : ""}`);
        if (!ok) {
          bad++;
          console.log(r.tail);
        }
      }
    } finally {
      Deno.removeSync(base, { recursive: true });
    }
  }
  const rows: string[] = [];
  for (const m of chosen) {
    const dir = scratchCopy();
    try {
      let result: string;
      let why = "";
      if (!apply(dir, m)) result = "stale";
      else {
        const r = await runTest(dir, m, timeoutMs);
        result = r.outcome === "failed" ? "caught" : r.outcome === "timeout" ? "timeout" : "MISSED";
        why = r.why;
        if (result === "MISSED") console.log(r.tail);
      }
      if (result !== "caught") bad++;
      const line = `${result.padEnd(8)} ${m.id.padEnd(26)} ${m.test}${m.filter ? ` --filter "${m.filter}"` : ""}`;
      rows.push(line);
      console.log(line);
      if (why) console.log(`         ${why}`);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  }
  console.log(`\n${rows.filter((r) => r.startsWith("caught")).length}/${chosen.length} mutations caught`);
  if (bad) Deno.exit(1);
}

if (import.meta.main) await main();
