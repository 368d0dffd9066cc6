/** Cruxe's release version, reported by `--version`, `health_check` and `/health`. */
export const VERSION = "0.3.0";

/** What `cruxe --version` prints. */
export function versionLine(): string {
  return `cruxe ${VERSION}`;
}

/** The Protocol v1 version string carried in every response's metadata. */
export const PROTOCOL_VERSION = "1.0";

/** The store schema version this build reads and writes. */
export const SCHEMA_VERSION = 28;
