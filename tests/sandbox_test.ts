/**
 * The permission sandbox: the computed policy, and proof that Deno itself
 * refuses what our own checks are bypassed for (the probe scripts call
 * Deno APIs directly, with no Cruxe path check in the way).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  buildSandboxFlags,
  cruxeOwnFiles,
  SANDBOX_ENV_MARKER,
  sandboxEnv,
  sandboxInputsFor,
  sandboxPolicy,
  workerPermissions,
} from "../src/cli/sandbox.ts";
import type { CruxeError } from "../src/core/errors.ts";
import { openFile } from "../src/query/open_file.ts";

const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "cruxe-sbx-" }));
const root = join(base, "dev"); // --allowed-root
const sibling = join(base, "dev2"); // same prefix, outside
const home = join(base, "home");
const outside = join(base, "outside");
for (const d of [root, sibling, home, outside, join(root, "app")]) Deno.mkdirSync(d, { recursive: true });
Deno.writeTextFileSync(join(root, "app/main.ts"), "export const ok = 1;\n");
Deno.writeTextFileSync(join(sibling, "secret.txt"), "sibling secret\n");
Deno.writeTextFileSync(join(outside, "secret.txt"), "outside secret\n");
Deno.symlinkSync(join(outside, "secret.txt"), join(root, "app/escape.txt"));
Deno.symlinkSync(root, join(base, "dev-link"));

const policy = sandboxPolicy({
  allowedRoots: [root],
  workspaces: [],
  home,
  ownFiles: cruxeOwnFiles(),
  listen: { hostname: "127.0.0.1", port: 9311 },
  llmUrl: "http://127.0.0.1:11434/api/chat",
});

Deno.test("sandbox policy: read roots + home + own files, write home only, net listen + LLM, run git", () => {
  assert.ok(policy.read.includes(root));
  assert.ok(policy.read.includes(home));
  assert.ok(policy.read.some((p) => p.endsWith("/src")));
  assert.ok(!policy.read.includes(outside) && !policy.read.includes(sibling));
  assert.deepEqual(policy.write, [home]);
  assert.deepEqual(policy.net, ["127.0.0.1:9311", "127.0.0.1:11434"]);
  assert.deepEqual(policy.run, ["git"]);
  const flags = buildSandboxFlags(policy);
  assert.ok(flags.includes("--no-prompt"));
  assert.ok(!flags.some((f) => f === "--allow-read" || f === "--allow-write" || f === "--allow-net" || f === "-A"));
  assert.ok(!flags.some((f) => f.startsWith("--allow-ffi") || f.startsWith("--allow-sys")));
});

Deno.test("sandbox policy: the configured embeddings endpoint is reachable as well as the LLM endpoint", () => {
  const inputs = sandboxInputsFor(
    {
      transport: "http",
      port: 9312,
      bind: "127.0.0.1",
      workspaces: [],
      autoWorkspace: true,
      allowedRoots: [root],
      prewarm: false,
      verbose: 0,
    },
    { CRUXE_HOME: home, CRUXE_LLM_URL: "http://127.0.0.1:11434/api/chat", CRUXE_EMBED_URL: "http://127.0.0.2:8081/v1" },
  );
  assert.deepEqual(sandboxPolicy(inputs).net, ["127.0.0.1:9312", "127.0.0.1:11434", "127.0.0.2:8081"]);
});

Deno.test("sandbox policy: a symlinked root is granted as given and as realpath; nested paths collapse", () => {
  const p = sandboxPolicy({
    allowedRoots: [join(base, "dev-link")],
    workspaces: [join(root, "app")],
    home,
    ownFiles: [],
  });
  assert.ok(p.read.includes(join(base, "dev-link")) && p.read.includes(root));
  assert.ok(!p.read.includes(join(root, "app")), "app is inside root already");
});

Deno.test("sandbox policy: refuses / as a root and paths Deno flags cannot express", () => {
  const code = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return (e as CruxeError).code;
    }
    return "no error";
  };
  assert.equal(code(() => sandboxPolicy({ allowedRoots: ["/"], workspaces: [], home, ownFiles: [] })), "invalid_input");
  assert.equal(
    code(() => sandboxPolicy({ allowedRoots: ["/tmp/a,b"], workspaces: [], home, ownFiles: [] })),
    "invalid_input",
  );
});

Deno.test("sandbox env: only pass-listed variables survive, plus the marker", () => {
  const env = sandboxEnv({
    CRUXE_HOME: "/h",
    PATH: "/bin",
    AWS_SECRET_ACCESS_KEY: "x",
    GIT_DIR: "/evil",
    HOME: "/root",
  });
  assert.deepEqual(env, { CRUXE_HOME: "/h", PATH: "/bin", HOME: "/root", [SANDBOX_ENV_MARKER]: "1" });
});

/** A probe that tries everything the sandbox must refuse, straight through Deno's APIs. */
const PROBE = `
const out = {};
const t = (k, fn) => { try { out[k] = "ok:" + String(fn()).trim(); } catch (e) { out[k] = e.name; } };
const [root, sibling, outside, home, late] = JSON.parse(Deno.args[0] ?? "null") ?? JSON.parse(await new Promise((r) => self.onmessage = (e) => r(e.data)));
t("inside", () => Deno.readTextFileSync(root + "/app/main.ts"));
t("etc", () => Deno.readTextFileSync("/etc/hostname"));
t("proc", () => Deno.readTextFileSync("/proc/self/environ"));
t("outside", () => Deno.readTextFileSync(outside + "/secret.txt"));
t("sibling", () => Deno.readTextFileSync(sibling + "/secret.txt"));
t("symlinkEscape", () => Deno.readTextFileSync(root + "/app/escape.txt"));
t("dotdot", () => Deno.readTextFileSync(root + "/../outside/secret.txt"));
t("writeHome", () => { Deno.writeTextFileSync(home + "/x.txt", "1"); return 1; });
t("writeRoot", () => { Deno.writeTextFileSync(root + "/x.txt", "1"); return 1; });
t("runSh", () => new Deno.Command("sh", { args: ["-c", "id"] }).outputSync().success);
t("runGit", () => new Deno.Command("git", { args: ["--version"] }).outputSync().success);
try { const c = await Deno.connect({ hostname: "127.0.0.1", port: 9 }); c.close(); out.netOther = "ok"; } catch (e) { out.netOther = e.name; }
// A workspace created inside the allowed root after this process started: the probe says it is waiting
// (stderr), the test then creates it.
let announced = false;
for (let i = 0; i < 1200 && out.late === undefined; i++) {
  try { out.late = "ok:" + Deno.readTextFileSync(late + "/new.ts").trim(); } catch (e) {
    if (e.name !== "NotFound") out.late = e.name;
    else {
      if (!announced) console.error("probe-waiting-for-late-workspace");
      announced = true;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
if (typeof self.postMessage === "function" && !Deno.args.length) self.postMessage(out); else console.log(JSON.stringify(out));
`;

function assertWall(out: Record<string, string>) {
  assert.equal(out.inside, "ok:export const ok = 1;");
  for (const k of ["etc", "proc", "outside", "sibling", "dotdot", "writeRoot", "runSh", "netOther"]) {
    assert.equal(out[k], "NotCapable", `${k}: ${out[k]}`);
  }
  assert.equal(out.writeHome, "ok:1");
  assert.equal(out.runGit, "ok:true");
  assert.equal(out.late, "ok:late workspace");
  // Deno checks the path it is handed and does not resolve symlinks: a link inside a root that points
  // outside is readable through the wall. Only our realpath check (open_file, the router) stops it.
  assert.equal(out.symlinkEscape, "ok:outside secret");
}

async function runProbe(args: string[], late: string): Promise<Record<string, string>> {
  const child = new Deno.Command(Deno.execPath(), { args, stdout: "piped", stderr: "piped" }).spawn();
  const stdout = new Response(child.stdout).text();
  const errReader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let err = "";
  try {
    // Wait for the probe to be running (and to have found no late workspace yet), then create it.
    while (!err.includes("probe-waiting-for-late-workspace")) {
      const { value, done } = await errReader.read();
      if (done) break;
      err += value;
    }
    Deno.mkdirSync(late, { recursive: true });
    Deno.writeTextFileSync(join(late, "new.ts"), "late workspace\n");
    for (;;) {
      const { value, done } = await errReader.read();
      if (done) break;
      err += value;
    }
  } finally {
    errReader.releaseLock();
  }
  const status = await child.status;
  const text = await stdout;
  assert.ok(status.success, err);
  assert.ok(err.includes("probe-waiting-for-late-workspace"), err);
  return JSON.parse(text);
}

Deno.test("sandbox wall (deno run flags): Deno refuses reads outside the roots even with our checks bypassed", async () => {
  const probe = join(base, "probe.js");
  Deno.writeTextFileSync(probe, PROBE);
  const late = join(root, "late-ws");
  const out = await runProbe(
    ["run", ...buildSandboxFlags(policy), probe, JSON.stringify([root, sibling, outside, home, late])],
    late,
  );
  assertWall(out);
});

Deno.test("sandbox wall (worker permissions, the compiled binary's path): same refusals", async () => {
  const probe = join(base, "probe_worker.js");
  Deno.writeTextFileSync(probe, PROBE);
  const late = join(root, "late-ws2");
  const perms = workerPermissions({ ...policy, read: [...policy.read, probe] });
  const host = join(base, "host.js");
  Deno.writeTextFileSync(
    host,
    `const w = new Worker(${JSON.stringify("file://" + probe)}, { type: "module", deno: { permissions: ${
      JSON.stringify(perms)
    } } });
w.onmessage = (e) => { console.log(JSON.stringify(e.data)); w.terminate(); };
w.postMessage(${JSON.stringify(JSON.stringify([root, sibling, outside, home, late]))});`,
  );
  const out = await runProbe(["run", "--unstable-worker-options", "-A", host], late);
  assertWall(out);
});

Deno.test("symlink escapes: the wall lets them through, so openFile's realpath check must refuse them", () => {
  let code = "no error";
  try {
    openFile(root, { path: "app/escape.txt" });
  } catch (e) {
    code = (e as CruxeError).code;
  }
  assert.equal(code, "forbidden");
});

/** What the sandboxed server's raw probe (no Cruxe check in the way) reported on stderr. */
function rawProbeOutcome(stderr: string): Record<string, string> {
  const line = stderr.split("\n").find((l) => l.startsWith("cruxe-test-raw-probe "));
  assert.ok(line, `the serving process ran no raw probe; stderr:\n${stderr}`);
  return JSON.parse(line.slice("cruxe-test-raw-probe ".length));
}

/** Runs serve-mcp through sandboxedServe (as a driver script) and makes a few calls over stdio. */
async function serveThroughSandbox(
  mode: "reexec" | "worker",
  probe: Record<string, string[]>,
): Promise<{ lines: Record<string, unknown>[]; probed: Record<string, string> }> {
  const repo = join(root, "app");
  const driver = join(base, `driver_${mode}.ts`);
  const sandboxUrl = new URL("../src/cli/sandbox.ts", import.meta.url).href;
  const parseUrl = new URL("../src/cli/commands/serve_cmd.ts", import.meta.url).href;
  const serveUrl = new URL("../src/cli/commands/serve_mcp.ts", import.meta.url).href;
  const probeMain = new URL("./helpers/raw_probe_main.ts", import.meta.url).href;
  const probeWorker = new URL("./helpers/raw_probe_worker.ts", import.meta.url).href;
  Deno.writeTextFileSync(
    driver,
    `import { sandboxedServe } from ${JSON.stringify(sandboxUrl)};
import { parseServeArgs } from ${JSON.stringify(parseUrl)};
import { runServe } from ${JSON.stringify(serveUrl)};
const argv = ["serve-mcp", "--workspace", ${JSON.stringify(repo)}, "--no-prewarm"];
const parsed = parseServeArgs("serve-mcp", argv.slice(1));
// The sandboxed server starts from the test's entries, which run the raw probe before serving.
const entry = { main: new URL(${JSON.stringify(probeMain)}), worker: new URL(${JSON.stringify(probeWorker)}) };
// As the CLI does: null means "serve here" (this driver runs with -A, so that would be unsandboxed).
const code = await sandboxedServe(argv, parsed, entry);
Deno.exit(code ?? await runServe(parsed));`,
  );
  const config = new URL("../deno.json", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-worker-options", `--config=${config}`, driver],
    env: {
      CRUXE_HOME: join(home, mode),
      AWS_SECRET_ACCESS_KEY: "must-not-pass",
      CRUXE_TEST_RAW_PROBE: JSON.stringify(probe),
      ...(mode === "worker" ? { CRUXE_SANDBOX: "worker" } : {}),
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  const send = (m: unknown) => w.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
  // One request at a time: each call waits for its answer (index_repo waits for its job).
  const answer = async (id: number) => {
    while (!buf.split("\n").some((l) => l.startsWith("{") && JSON.parse(l).id === id)) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
    }
  };
  const call = async (id: number, name: string, args: Record<string, unknown>) => {
    await send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
    await answer(id);
  };
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  await answer(1);
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await call(2, "index_repo", { wait: true });
  await call(3, "locate_symbol", { name: "ok" });
  await call(4, "open_file", { path: "escape.txt" });
  await w.close();
  const status = await child.status;
  reader.releaseLock();
  await child.stdout.cancel().catch(() => {});
  const err = new TextDecoder().decode(await new Response(child.stderr).arrayBuffer());
  assert.equal(status.code, 0, err);
  return {
    lines: buf.trim().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l)),
    probed: rawProbeOutcome(err),
  };
}

function toolText(lines: Record<string, unknown>[], id: number): Record<string, unknown> {
  const msg = lines.find((l) => l.id === id) as { result: { content: { text: string }[] } };
  assert.ok(msg, `no answer for call ${id}`);
  return JSON.parse(msg.result.content[0].text);
}

for (const mode of ["reexec", "worker"] as const) {
  Deno.test(`sandboxedServe (${mode}): serve-mcp indexes and answers inside the sandbox; escapes still refused`, async () => {
    // A live listener outside the grants: unsandboxed, connecting to it succeeds.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const netOther = `127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
    const written = join(outside, `written-${mode}.txt`);
    const inside = join(root, "app/main.ts");
    const secret = join(outside, "secret.txt");
    try {
      const { lines, probed } = await serveThroughSandbox(mode, {
        read: [inside, secret, join(sibling, "secret.txt"), "/etc/hostname"],
        write: [written, join(root, "app/planted.txt")],
        net: [netOther],
        env: ["AWS_SECRET_ACCESS_KEY", "CRUXE_HOME"],
      });
      // Raw Deno calls from inside the serving process, with Cruxe's own checks bypassed.
      assert.equal(probed[`read:${inside}`], "ok:export const ok = 1;", "the probe itself works");
      for (const p of [secret, join(sibling, "secret.txt"), "/etc/hostname"]) {
        assert.equal(probed[`read:${p}`], "NotCapable", `read ${p}`);
      }
      for (const p of [written, join(root, "app/planted.txt")]) {
        assert.equal(probed[`write:${p}`], "NotCapable", `write ${p}`);
        assert.throws(() => Deno.statSync(p), Deno.errors.NotFound, `${p} was not written`);
      }
      assert.equal(probed[`net:${netOther}`], "NotCapable", "connect outside the listen address");
      assert.equal(probed["env:AWS_SECRET_ACCESS_KEY"], "absent", "a secret variable never reaches the server");
      assert.equal(probed["env:CRUXE_HOME"], "present", "Cruxe's own variables do");

      const located = toolText(lines, 3) as { results: { path: string }[] };
      assert.deepEqual(located.results.map((r) => r.path), ["main.ts"]);
      const refused = toolText(lines, 4) as { error: { code: string } };
      assert.equal(refused.error.code, "forbidden");
      assert.ok(!JSON.stringify(lines).includes("outside secret"));
    } finally {
      listener.close();
    }
  });
}

Deno.test({
  name: "sandbox: teardown",
  fn() {
    Deno.removeSync(base, { recursive: true });
  },
});
