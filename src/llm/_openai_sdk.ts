/**
 * The `openai` SDK, re-exported for `openai_model.ts`, which loads this module by a computed
 * specifier on its first request (so importing odek does not load the SDK), while `deno compile
 * --include src/` still finds the SDK through this static import.
 *
 * @module
 */
export * from "openai";
