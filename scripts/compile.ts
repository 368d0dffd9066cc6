/**
 * Builds the single `cruxe` executable: grammars and every worker module
 * embedded, the permissions of the `cruxe` task baked in. Extra arguments
 * (e.g. `--target aarch64-apple-darwin --output dist/cruxe-arm64`) go to
 * `deno compile`.
 * Run: deno task compile [--target T] [--output PATH]
 */
const root = new URL("../", import.meta.url);

/** Every `*_worker.ts` under src/: workers are loaded by URL, so compile must be told about them. */
export function workerModules(dir: URL, rel = "src/"): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    if (e.isDirectory) out.push(...workerModules(new URL(e.name + "/", dir), rel + e.name + "/"));
    else if (e.name.endsWith("_worker.ts")) out.push(rel + e.name);
  }
  return out.sort();
}

if (import.meta.main) {
  const args = [...Deno.args];
  if (!args.includes("--output") && !args.includes("-o")) args.push("--output", "dist/cruxe");
  const includes = ["grammars", ...workerModules(new URL("src/", root))].flatMap((p) => ["--include", p]);
  const cmd = [
    "compile",
    ...includes,
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-run",
    "--allow-net",
    "--allow-sys",
    ...args,
    "main.ts",
  ];
  console.error(`deno ${cmd.join(" ")}`);
  const status = await new Deno.Command(Deno.execPath(), { args: cmd, cwd: root, stdout: "inherit", stderr: "inherit" })
    .spawn().status;
  Deno.exit(status.code);
}
