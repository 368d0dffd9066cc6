/**
 * The raw probe of the sandbox test, run by its own entry points
 * (`raw_probe_main.ts`, `raw_probe_worker.ts`) inside the sandboxed server
 * before it serves; Cruxe's own start-up never loads it. It proves that
 * Deno's permission sandbox, not Cruxe's own path checks, is what stops the
 * serving process: `CRUXE_TEST_RAW_PROBE` holds a JSON object
 * `{ read?: string[], write?: string[], net?: string[], env?: string[] }`
 * and the probe tries each access with raw Deno calls (no Cruxe check in the
 * way), then prints one line `cruxe-test-raw-probe {…}` on stderr with each
 * outcome (`ok…`, or the error's name such as `NotCapable`). It grants
 * nothing, changes no permission and never touches stdout (the protocol's).
 */

/** The environment variable that turns the probe on (tests only). */
export const RAW_PROBE_ENV = "CRUXE_TEST_RAW_PROBE";

/** What the probe tries. */
export interface RawProbeSpec {
  read?: string[];
  write?: string[];
  net?: string[];
  env?: string[];
}

/** Runs the probe `CRUXE_TEST_RAW_PROBE` describes; does nothing when it is not set. */
export async function runRawProbe(): Promise<void> {
  const raw = Deno.env.get(RAW_PROBE_ENV);
  if (!raw) return;
  const spec = JSON.parse(raw) as RawProbeSpec;
  const out: Record<string, string> = {};
  const attempt = async (key: string, fn: () => Promise<string> | string) => {
    try {
      out[key] = await fn();
    } catch (e) {
      out[key] = (e as Error).name;
    }
  };
  for (const p of spec.read ?? []) await attempt(`read:${p}`, () => "ok:" + Deno.readTextFileSync(p).trim());
  for (const p of spec.write ?? []) {
    await attempt(`write:${p}`, () => {
      Deno.writeTextFileSync(p, "written by the raw probe\n");
      return "ok";
    });
  }
  for (const a of spec.net ?? []) {
    await attempt(`net:${a}`, async () => {
      const [hostname, port] = a.split(":");
      const c = await Deno.connect({ hostname, port: Number(port) });
      c.close();
      return "ok";
    });
  }
  for (const k of spec.env ?? []) await attempt(`env:${k}`, () => Deno.env.get(k) === undefined ? "absent" : "present");
  console.error(`cruxe-test-raw-probe ${JSON.stringify(out)}`);
}
