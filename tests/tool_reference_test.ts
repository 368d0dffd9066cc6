/** The guide's tool reference is the one the tool definitions make (`scripts/tool_reference.ts --write`). */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "./mcp_helpers.ts";
import { BEGIN, END, guideWithReference, toolReference } from "../scripts/tool_reference.ts";
import { TOOLS } from "../src/service/tools/registry.ts";

Deno.test("docs/GUIDE.md's tool reference is generated from the tool definitions, every tool in it", async () => {
  const guide = Deno.readTextFileSync(join(REPO_ROOT, "docs", "GUIDE.md"));
  const block = toolReference();
  assert.equal(
    await guideWithReference(guide),
    guide,
    "docs/GUIDE.md is behind the tool definitions: run deno run -A scripts/tool_reference.ts --write",
  );
  for (const t of TOOLS) assert.ok(block.includes(`#### \`${t.name}\``), t.name);
  assert.ok(block.startsWith(BEGIN) && block.endsWith(END));
  // A tool's CLI flag is shown beside the argument it fills.
  assert.match(block, /\| `path_prefix` \| string \| `--path-prefix` \|/);
});
