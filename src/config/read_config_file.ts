/**
 * Reading the user's configuration file (`ODEK_HOME/config.jsonc`): a trusted path, capped,
 * parsed as JSONC and validated.
 *
 * @module
 */
import type { z } from "zod";
import { OdekError } from "../_util/odek_error.ts";
import { parseJsonc, validateLayer } from "./_validate_layer.ts";

/** Largest config file read, in bytes (5 MiB, odek-go §2.1). */
export const MAX_CONFIG_BYTES = 5 * 1024 * 1024;

/**
 * Read, parse and validate a configuration file. A missing file is `undefined`; an empty one (or
 * one holding only comments) is an empty layer.
 *
 * @param file the file's absolute path
 * @param schema the layer's schema
 * @returns the validated layer, or `undefined` when the file does not exist
 * @throws {OdekError} `CONFIG_INVALID` for a file that is not a regular file, is over 5 MiB,
 *   cannot be read, is not JSONC (line and column), or fails the schema (key path, value,
 *   expected shape)
 *
 * @example A missing file
 * ```ts
 * import { readConfigFile } from "./read_config_file.ts";
 * import { ConfigLayerSchema } from "./odek_config.ts";
 * if (await readConfigFile("/nonexistent/config.jsonc", ConfigLayerSchema) !== undefined) throw new Error();
 * ```
 */
export async function readConfigFile<T>(
  file: string,
  schema: z.ZodType<T>,
): Promise<T | undefined> {
  let text: string;
  try {
    const info = await Deno.stat(file);
    if (!info.isFile) {
      throw new OdekError(
        "CONFIG_INVALID",
        `Cannot read ${file}: it is not a regular file. Replace it with a JSONC file or remove it.`,
      );
    }
    if (info.size > MAX_CONFIG_BYTES) {
      throw new OdekError(
        "CONFIG_INVALID",
        `Cannot read ${file}: it is ${info.size} bytes, more than the 5 MiB a config file may have. Shrink it.`,
      );
    }
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    if (error instanceof OdekError) throw error;
    throw new OdekError(
      "CONFIG_INVALID",
      `Cannot read ${file}: ${(error as Error).message}. Check its permissions.`,
      { cause: error },
    );
  }
  return parseConfigText(text, file, schema);
}

/**
 * Parse JSONC text and validate it as one layer.
 *
 * @param text the file's text
 * @param file its path, named in errors
 * @param schema the layer's schema
 * @returns the validated layer
 * @throws {OdekError} `CONFIG_INVALID` naming the file and the key path, value and shape
 */
export function parseConfigText<T>(text: string, file: string, schema: z.ZodType<T>): T {
  return validateLayer(parseJsonc(text, file), schema, () => file);
}
