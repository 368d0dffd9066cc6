import assert from "node:assert/strict";
import { buildMetadata } from "./metadata.ts";

Deno.test("metadata: an index that is not usable is never fresh by default; a usable one is", () => {
  for (const schema_status of ["not_indexed", "reindex_required", "corrupt_manifest"] as const) {
    assert.equal(buildMetadata({ schema_status }).freshness_status, "stale", schema_status);
  }
  assert.equal(buildMetadata({}).freshness_status, "fresh");
  assert.equal(
    buildMetadata({ schema_status: "not_indexed", freshness_status: "syncing" }).freshness_status,
    "syncing",
  );
});
