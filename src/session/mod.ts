/**
 * Sessions: the append-only journal store, resume repair and session ids (design §5).
 * Each export's own file has its runnable examples.
 *
 * @module
 */
export * from "./session_store.ts";
export * from "./file_session_store.ts";
export * from "./memory_session_store.ts";
export * from "./repair_transcript.ts";
export * from "./repair_tool_calls.ts";
export * from "./journal_record.ts";
export * from "./validate_session_id.ts";
export * from "./generate_session_id.ts";
