/**
 * Whether this process runs the slow tests: only `deno task test:slow` sets `ODEK_SLOW_TESTS=1`.
 * The main suite walks `tests/` with `--doc`, and Deno's `--ignore` does not apply there, so each
 * slow test asks this instead (and the main suite lists it as ignored, saying why once).
 */
export const SLOW = Deno.env.get("ODEK_SLOW_TESTS") === "1";

if (!SLOW) {
  console.log(
    "skipping the slow tests here: they run with deno task test:slow (ODEK_SLOW_TESTS=1)",
  );
}
