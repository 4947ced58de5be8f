/**
 * Approvals: the {@linkcode Approver} seam, the `--yes` policy, the terminal approver and the
 * per-run memory of grants and friction (design §3). Not wired into the loop yet. Each export's
 * own file has its runnable examples.
 *
 * @module
 */
export * from "./approver.ts";
export * from "./asking_classes.ts";
export * from "./parse_yes_flag.ts";
export * from "./non_interactive_approver.ts";
export * from "./approval_memory.ts";
export * from "./terminal_approver.ts";
export * from "./render_patch_preview.ts";
export * from "./render_write_diff.ts";
export * from "./clarifier.ts";
export * from "./terminal_clarifier.ts";
