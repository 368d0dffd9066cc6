/**
 * Hostile repositories that borrow another repository's git objects: an
 * `objects/info/alternates` naming the other store (absolute, relative, or
 * through a symlinked `objects/info`), `http-alternates`, `objects/` itself a
 * symlink, symlinked pack files, symlinked loose objects with a
 * `packed-refs` line naming the other repository's commit, a symlinked ref
 * file, and git's environment variables set in the server's own environment.
 * Each holds a `stolen` ref naming a commit of a repository outside every
 * root; no step may ever answer with that repository's content. A control
 * step first shows plain git does read the other repository's code through
 * each fixture.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { commitAll, git } from "./helpers/fixture_repo.ts";
import { bodyOf, CRUXE_FLAGS, inProcess, REPO_ROOT, tempHomeDir } from "./mcp_helpers.ts";
import { Registry } from "../src/state/registry.ts";

/** Only the other repository holds it: seeing it in any output is a leak. */
const SECRET = `SECRET_${crypto.randomUUID().replaceAll("-", "")}`;
const STOLEN_FN = `stolen_fn_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;

const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "cruxe-hostile-objects-" }));
const allowed = join(base, "allowed");
const outside = join(base, "outside");
Deno.mkdirSync(allowed);
Deno.mkdirSync(outside);

/** The other repository (outside every root): loose objects, one commit holding the secret. */
const other = join(outside, "other");
Deno.mkdirSync(other);
Deno.writeTextFileSync(join(other, "secret.py"), `def ${STOLEN_FN}():\n    return "${SECRET}"\n`);
git(other, "init", "-q", "-b", "main");
commitAll(other, "secret");
const FOREIGN = git(other, "rev-parse", "HEAD").trim();
const otherObjects = join(other, ".git", "objects");
/** The same repository packed (for the symlinked-pack variant). */
const packed = join(outside, "packed");
git(outside, "clone", "-q", "--no-local", other, packed);
git(packed, "repack", "-q", "-a", "-d");

/** A repository of its own: `alpha.py` committed. */
function ownRepo(name: string): string {
  const dir = join(allowed, name);
  Deno.mkdirSync(dir);
  Deno.writeTextFileSync(join(dir, "alpha.py"), "def alpha_fn():\n    return 1\n");
  git(dir, "init", "-q", "-b", "main");
  commitAll(dir, "init");
  return dir;
}

/** Writes the `stolen` branch as a loose ref file naming the other repository's commit. */
function stolenRef(dir: string): void {
  Deno.writeTextFileSync(join(dir, ".git", "refs", "heads", "stolen"), FOREIGN + "\n");
}

interface Variant {
  name: string;
  dir: string;
  /** true: the `.git` is refused (plain mode, reason shown); false: git mode stays, the ref is refused. */
  plain: boolean;
  /** What the refusal must mention. */
  why: RegExp;
}

function makeVariants(): Variant[] {
  const v: Variant[] = [];
  let d = ownRepo("alt-absolute");
  Deno.writeTextFileSync(join(d, ".git", "objects", "info", "alternates"), otherObjects + "\n");
  stolenRef(d);
  v.push({ name: "alt-absolute", dir: d, plain: true, why: /alternates/ });

  d = ownRepo("alt-relative");
  const objects = join(d, ".git", "objects");
  Deno.writeTextFileSync(join(objects, "info", "alternates"), `# borrowed\n${relative(objects, otherObjects)}\n`);
  stolenRef(d);
  v.push({ name: "alt-relative", dir: d, plain: true, why: /alternates/ });

  d = ownRepo("info-symlink");
  const evilInfo = join(outside, "evil-info");
  Deno.mkdirSync(evilInfo);
  Deno.writeTextFileSync(join(evilInfo, "alternates"), otherObjects + "\n");
  Deno.removeSync(join(d, ".git", "objects", "info"), { recursive: true });
  Deno.symlinkSync(evilInfo, join(d, ".git", "objects", "info"));
  stolenRef(d);
  v.push({ name: "info-symlink", dir: d, plain: true, why: /info is a symlink/ });

  d = ownRepo("objects-symlink");
  Deno.removeSync(join(d, ".git", "objects"), { recursive: true });
  Deno.symlinkSync(otherObjects, join(d, ".git", "objects"));
  stolenRef(d);
  v.push({ name: "objects-symlink", dir: d, plain: true, why: /objects is a symlink/ });

  d = ownRepo("pack-symlink");
  const packDir = join(packed, ".git", "objects", "pack");
  for (const e of Deno.readDirSync(packDir)) {
    Deno.symlinkSync(join(packDir, e.name), join(d, ".git", "objects", "pack", e.name));
  }
  stolenRef(d);
  v.push({ name: "pack-symlink", dir: d, plain: true, why: /pack-.* is a symlink/ });

  d = ownRepo("http-alternates");
  Deno.writeTextFileSync(join(d, ".git", "objects", "info", "http-alternates"), "https://example.invalid/o.git\n");
  v.push({ name: "http-alternates", dir: d, plain: true, why: /http-alternates/ });

  // Every loose object of the other repository linked into real fan-out directories, and the commit named by a
  // `packed-refs` line: the object store passes the per-call check, so git mode stays and the ref is refused.
  d = ownRepo("loose-symlinks");
  for (const fan of Deno.readDirSync(otherObjects)) {
    if (!/^[0-9a-f]{2}$/.test(fan.name)) continue;
    Deno.mkdirSync(join(d, ".git", "objects", fan.name), { recursive: true });
    for (const o of Deno.readDirSync(join(otherObjects, fan.name))) {
      Deno.symlinkSync(join(otherObjects, fan.name, o.name), join(d, ".git", "objects", fan.name, o.name));
    }
  }
  Deno.writeTextFileSync(
    join(d, ".git", "packed-refs"),
    `# pack-refs with: peeled fully-peeled sorted\n${FOREIGN} refs/heads/stolen\n`,
  );
  v.push({ name: "loose-symlinks", dir: d, plain: false, why: /is a symlink/ });

  // The other repository's fan-out directories linked in whole (files alone where the name is taken).
  d = ownRepo("fanout-symlinks");
  for (const fan of Deno.readDirSync(otherObjects)) {
    if (!/^[0-9a-f]{2}$/.test(fan.name)) continue;
    const mine = join(d, ".git", "objects", fan.name);
    try {
      for (const o of Deno.readDirSync(join(otherObjects, fan.name))) {
        Deno.symlinkSync(join(otherObjects, fan.name, o.name), join(mine, o.name));
      }
    } catch {
      Deno.symlinkSync(join(otherObjects, fan.name), mine);
    }
  }
  stolenRef(d);
  v.push({ name: "fanout-symlinks", dir: d, plain: false, why: /is a symlink/ });

  // A ref file that is a symlink to the other repository's branch.
  d = ownRepo("ref-symlink");
  Deno.symlinkSync(join(other, ".git", "refs", "heads", "main"), join(d, ".git", "refs", "heads", "stolen"));
  v.push({ name: "ref-symlink", dir: d, plain: false, why: /refs\/heads\/stolen is a symlink/ });
  return v;
}

const variants = makeVariants();
const homes = new Map(variants.map((v) => [v.name, tempHomeDir()]));

/** Runs the CLI (`main.ts` with the task's permission flags); its exit status and both outputs. */
async function cruxe(
  home: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ ok: boolean; out: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...CRUXE_FLAGS, join(REPO_ROOT, "main.ts"), ...args],
    env: { CRUXE_HOME: home, CRUXE_WORKERS: "1", NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr);
  assert.ok(!out.includes(SECRET), `cruxe ${args.join(" ")} printed the other repository's content: ${out}`);
  return { ok: r.success, out };
}

Deno.test("control: plain git reads the other repository's commit through every fixture", () => {
  for (const v of variants.filter((x) => x.name !== "http-alternates")) {
    const rev = new Deno.Command("git", {
      args: ["-C", v.dir, "cat-file", "-p", `${v.name === "ref-symlink" ? FOREIGN : "stolen"}:secret.py`],
      stdout: "piped",
      stderr: "null",
    }).outputSync();
    // The symlinked ref alone names the commit; its objects are not there (it shows the ref is read).
    if (v.name === "ref-symlink") {
      assert.equal(git(v.dir, "rev-parse", "stolen").trim(), FOREIGN, v.name);
      continue;
    }
    assert.match(new TextDecoder().decode(rev.stdout), new RegExp(SECRET), `${v.name}: git reads the secret`);
  }
});

Deno.test("borrowed objects: plain mode with the reason, and the other repository's commit is never indexed", async () => {
  for (const v of variants) {
    const home = homes.get(v.name)!;
    assert.ok((await cruxe(home, ["index", "--path", v.dir])).ok, v.name);
    const r = await cruxe(home, ["index", "--path", v.dir, "--ref", "stolen", "--json"]);
    assert.equal(r.ok, false, `${v.name}: the stolen ref was indexed: ${r.out}`);
    const reg = Registry.open(home);
    try {
      assert.equal(reg.listProjects()[0]?.vcs_mode, v.plain ? "plain" : "git", v.name);
    } finally {
      reg.close();
    }
    if (v.plain) assert.match(r.out, /ref_not_indexed|not a git repository/, v.name);
    else {
      assert.match(r.out, /invalid_input/, `${v.name}: ${r.out}`);
      assert.match(r.out, v.why, `${v.name}: the refusal says why`);
    }
    const s = inProcess({}, { home });
    try {
      const st = bodyOf(await s.call("index_status", { workspace: v.dir }));
      if (v.plain) assert.match(String(st.git_refused), v.why, `${v.name}: ${JSON.stringify(st)}`);
      else assert.equal(st.git_refused, undefined, v.name);
      const r2 = await s.call("get_file_outline", { workspace: v.dir, path: "secret.py", ref: "stolen" });
      assert.ok(!JSON.stringify(r2).includes(SECRET), v.name);
      const own = bodyOf(await s.call("get_file_outline", { workspace: v.dir, path: "alpha.py" }));
      assert.match(JSON.stringify(own), /alpha_fn/, `${v.name}: the working tree is still served`);
    } finally {
      s.close();
    }
    if (v.plain) {
      const doctor = await cruxe(home, ["doctor", "--json"]);
      assert.match(doctor.out, new RegExp(`git not used[^"]*${v.why.source}`), `${v.name}: doctor says why`);
    }
  }
});

Deno.test("git's environment variables in the server's environment reach no git call", async () => {
  const d = ownRepo("env");
  Deno.writeTextFileSync(join(d, ".git", "packed-refs"), `${FOREIGN} refs/heads/stolen\n`);
  const env = {
    GIT_ALTERNATE_OBJECT_DIRECTORIES: otherObjects,
    GIT_OBJECT_DIRECTORY: otherObjects,
    GIT_COMMON_DIR: join(other, ".git"),
    GIT_DIR: join(other, ".git"),
    GIT_WORK_TREE: other,
    GIT_INDEX_FILE: join(other, ".git", "index"),
    GIT_NAMESPACE: "evil",
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "core.worktree",
    GIT_CONFIG_VALUE_0: other,
  };
  // Control: git run with that environment reads the other repository.
  const ctl = new Deno.Command("git", {
    args: ["-C", d, "cat-file", "-p", "stolen:secret.py"],
    env: { GIT_ALTERNATE_OBJECT_DIRECTORIES: otherObjects },
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  assert.match(new TextDecoder().decode(ctl.stdout), new RegExp(SECRET), "control");
  const home = tempHomeDir();
  try {
    assert.ok((await cruxe(home, ["index", "--path", d], env)).ok);
    const head = await cruxe(home, ["index", "--path", d, "--ref", "HEAD", "--json"], env);
    assert.ok(head.ok, `the repository's own HEAD is indexed from its own objects: ${head.out}`);
    const stolen = await cruxe(home, ["index", "--path", d, "--ref", "stolen", "--json"], env);
    assert.equal(stolen.ok, false, `the other repository's commit was indexed: ${stolen.out}`);
    const s = inProcess({}, { home });
    try {
      const own = bodyOf(await s.call("get_file_outline", { workspace: d, path: "alpha.py", ref: "HEAD" }));
      assert.match(JSON.stringify(own), /alpha_fn/);
      const files = JSON.stringify(bodyOf(await s.call("index_status", { workspace: d })));
      assert.match(files, /"file_count":1\b/, files);
    } finally {
      s.close();
    }
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test({
  name: "hostile objects: teardown",
  sanitizeResources: false,
  sanitizeOps: false,
  fn() {
    Deno.removeSync(base, { recursive: true });
    for (const h of homes.values()) Deno.removeSync(h, { recursive: true });
  },
});
