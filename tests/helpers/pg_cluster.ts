/**
 * A throwaway PostgreSQL cluster for tests: `initdb` into a temporary
 * directory, `postgres` on a free loopback port, run as an unprivileged user
 * (`initdb` refuses root: as root the cluster belongs to `nobody` and every
 * server binary runs through `runuser`). `startPgCluster` returns null when
 * no PostgreSQL binaries are installed, so a test can skip saying why (CI
 * installs them, so there it never skips).
 */
import { join } from "node:path";
import { existsSync } from "node:fs";

/** Where Debian installs each PostgreSQL major version's binaries. */
const PG_LIB = "/usr/lib/postgresql";

/** The directory of the newest installed PostgreSQL's binaries, or null. */
export function pgBinDir(): string | null {
  const env = Deno.env.get("CRUXE_TEST_PG_BIN");
  if (env) return existsSync(join(env, "initdb")) ? env : null;
  let versions: string[] = [];
  try {
    versions = [...Deno.readDirSync(PG_LIB)].map((e) => e.name).filter((n) => /^\d+$/.test(n));
  } catch {
    return null;
  }
  versions.sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = join(PG_LIB, v, "bin");
    if (existsSync(join(bin, "initdb")) && existsSync(join(bin, "postgres"))) return bin;
  }
  return null;
}

/** The message a test skips with when no PostgreSQL is installed. */
export const NO_PG =
  "PostgreSQL binaries not found under /usr/lib/postgresql (install postgresql-15; .ci/run does): skipped";

/** A running (or stopped) throwaway cluster. */
export interface PgCluster {
  /** Superuser URL (`postgres` user, trust authentication on loopback). */
  url: string;
  port: number;
  dir: string;
  /** A URL for `user` (and `password`) on this cluster's `postgres` database. */
  urlFor(user: string, password?: string): string;
  /** Stops the server (immediate shutdown: like a crash, no checkpoint). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  destroy(): Promise<void>;
}

/** A loopback TCP port nothing listens on now. */
function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

const NOBODY = 65534;

/** Runs a PostgreSQL binary (as `nobody` when this process is root); throws with its stderr on failure. */
async function runPg(bin: string, args: string[]): Promise<void> {
  const root = Deno.uid() === 0;
  const out = await new Deno.Command(root ? "runuser" : bin, {
    args: root ? ["-u", "nobody", "--", bin, ...args] : args,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  if (!out.success) {
    throw new Error(`${bin} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr).slice(-2000)}`);
  }
}

/**
 * Creates and starts a cluster; null when PostgreSQL is not installed.
 * Requires `--allow-run`, `--allow-read`, `--allow-write` (temp dir) and `--allow-net=127.0.0.1`.
 */
export async function startPgCluster(): Promise<PgCluster | null> {
  const bin = pgBinDir();
  if (!bin) return null;
  const { dir, data, sock } = await clusterDir();
  const port = freePort();
  await runPg(join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]);
  return await launch(bin, dir, data, sock, port);
}

/**
 * A temporary directory for a cluster (its data directory not created yet), owned by `nobody` when this
 * process is root; under /tmp then, which `nobody` can reach whatever TMPDIR says.
 */
async function clusterDir(): Promise<{ dir: string; data: string; sock: string }> {
  const root = Deno.uid() === 0;
  const dir = await Deno.makeTempDir({ prefix: "cruxe-pg-", ...(root ? { dir: "/tmp" } : {}) });
  const sock = join(dir, "sock");
  await Deno.mkdir(sock);
  if (root) {
    await Deno.chown(dir, NOBODY, NOBODY);
    await Deno.chown(sock, NOBODY, NOBODY);
  }
  return { dir, data: join(dir, "data"), sock };
}

/**
 * A streaming replica of `primary`: `pg_basebackup` of it (streaming its WAL, set up to follow it), started
 * on a free port. It serves reads only, and replays each of the primary's commits shortly after it.
 */
export async function startStandby(primary: PgCluster): Promise<PgCluster> {
  const bin = pgBinDir()!;
  const { dir, data, sock } = await clusterDir();
  await runPg(join(bin, "pg_basebackup"), [
    "-D",
    data,
    "-h",
    "127.0.0.1",
    "-p",
    String(primary.port),
    "-U",
    "postgres",
    "-R",
    "-X",
    "stream",
    "--no-sync",
  ]);
  return await launch(bin, dir, data, sock, freePort());
}

/** Starts the cluster in `data` on `port` and returns its handle. */
async function launch(bin: string, dir: string, data: string, sock: string, port: number): Promise<PgCluster> {
  const opts = `-p ${port} -k ${sock} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`;
  const ctl = (args: string[]) => runPg(join(bin, "pg_ctl"), ["-D", data, ...args]);
  const start = () => ctl(["-w", "-t", "60", "-l", join(dir, "log"), "-o", opts, "start"]);
  await start();
  let running = true;
  const urlFor = (user: string, password?: string) =>
    `postgres://${encodeURIComponent(user)}${
      password ? `:${encodeURIComponent(password)}` : ""
    }@127.0.0.1:${port}/postgres`;
  return {
    url: urlFor("postgres"),
    port,
    dir,
    urlFor,
    async stop() {
      if (!running) return;
      await ctl(["-w", "-m", "immediate", "stop"]);
      running = false;
    },
    async start() {
      if (running) return;
      await start();
      running = true;
    },
    async destroy() {
      try {
        if (running) await ctl(["-w", "-m", "immediate", "stop"]);
      } finally {
        running = false;
        await Deno.remove(dir, { recursive: true });
      }
    },
  };
}
