/**
 * The store a command reads and writes: today's SQLite files under the Cruxe
 * home (no URL), or a PostgreSQL database named by a `postgres://` URL
 * (`--store`, or the config's `store`). The URL's password never appears in
 * a message: `redactedStoreUrl` is what errors and output show.
 */
import { CruxeError } from "../../core/errors.ts";

/** The URL schemes a PostgreSQL store is named by. */
const SCHEMES = ["postgres:", "postgresql:"];

/**
 * `url` checked as a PostgreSQL store URL (`postgres://user@host:port/db`);
 * `invalid_input` naming `field` when it is anything else.
 */
export function checkStoreUrl(url: string, field = "--store"): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch { /* said below */ }
  if (!parsed || !SCHEMES.includes(parsed.protocol) || !parsed.hostname) {
    throw new CruxeError(
      "invalid_input",
      `${field} must be a PostgreSQL URL such as postgres://cruxe@db.example:5432/cruxe (got ${
        JSON.stringify(redactedStoreUrl(url).slice(0, 120))
      }); without it the SQLite store under the Cruxe home is used`,
      { field },
    );
  }
  return url;
}

/** The URL with any password replaced by `***`, for messages. */
export function redactedStoreUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
  }
}

/**
 * The store URL a command uses: its `--store` flag, else the config's
 * `store`; null for the SQLite store. Checked either way.
 */
export function storeUrlFor(flag: string | undefined, configured: string | null): string | null {
  if (flag !== undefined) return checkStoreUrl(flag, "--store");
  return configured === null ? null : checkStoreUrl(configured, "config key store");
}
