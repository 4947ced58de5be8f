/**
 * Reading (with validation) and atomic writing of cassette files.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import { type Cassette, CassetteSchema } from "./cassette.ts";

/**
 * Loads and validates a cassette.
 *
 * @throws {OdekError} `CASSETTE_INVALID` naming the file, the key path and what was expected
 */
export async function readCassette(file: string): Promise<Cassette> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    throw new OdekError(
      "CASSETTE_INVALID",
      `Cannot read the cassette ${file}: ${(err as Error).message}. ` +
        `Check the path, or record one with --record.`,
      { cause: err },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new OdekError(
      "CASSETTE_INVALID",
      `The cassette ${file} is not valid JSON (${
        (err as Error).message
      }): re-record it with --record.`,
      { cause: err },
    );
  }
  const parsed = CassetteSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue.path.length === 0 ? "the top level" : keyPath(issue.path);
    throw new OdekError(
      "CASSETTE_INVALID",
      `The cassette ${file} is not an odek.cassette/v1 file: at ${at}, ${issue.message}. ` +
        `Re-record it with --record.`,
      { cause: parsed.error },
    );
  }
  return parsed.data;
}

/**
 * Replaces the cassette file atomically: a temporary file (mode 0600) in the same folder, then a
 * rename over the target.
 *
 * @throws {OdekError} `CASSETTE_INVALID` when the file cannot be written
 */
export async function writeCassette(file: string, cassette: Cassette): Promise<void> {
  const temp = join(dirname(file), `.${crypto.randomUUID()}.cassette.tmp`);
  try {
    await Deno.writeTextFile(temp, `${JSON.stringify(cassette, null, 2)}\n`, { mode: 0o600 });
    await Deno.rename(temp, file);
  } catch (err) {
    await Deno.remove(temp).catch(() => {});
    throw new OdekError(
      "CASSETTE_INVALID",
      `Cannot write the cassette ${file}: ${(err as Error).message}. ` +
        `Check that its folder exists and is writable.`,
      { cause: err },
    );
  }
}

/** `turns[1].response.chunks` from `["turns", 1, "response", "chunks"]`. */
function keyPath(path: PropertyKey[]): string {
  return path.map((key, i) =>
    typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${String(key)}`
  ).join("");
}
