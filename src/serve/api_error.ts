/**
 * One mapping from odek's errors to HTTP answers: `{ error: { code, message } }` with the status
 * the code means.
 *
 * @module
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { OdekError, type OdekErrorCode } from "../_util/odek_error.ts";

const STATUS: Partial<Record<OdekErrorCode, 400 | 404 | 409 | 503>> = {
  USAGE: 400,
  CONFIG_INVALID: 400,
  WORKSPACE_INVALID: 400,
  SESSION_NOT_FOUND: 404,
  SESSION_LOCKED: 409,
  SESSION_BUSY: 409,
  RESTORE_CONFLICT: 409,
  CHECKPOINT_UNAVAILABLE: 409,
  SESSION_CORRUPT: 409,
  SANDBOX_UNAVAILABLE: 503,
  MISSING_API_KEY: 503,
};

/** The status an error answers with. */
export function statusOf(error: unknown): 400 | 404 | 409 | 500 | 503 {
  if (error instanceof OdekError) return STATUS[error.code] ?? 500;
  if (error instanceof TypeError || error instanceof RangeError) return 400;
  return 500;
}

/**
 * Answer with an error.
 *
 * @param c the request's context
 * @param error what was thrown
 * @returns the JSON error response
 */
export function apiError(c: Context, error: unknown): Response {
  if (error instanceof HTTPException) {
    const status = error.status >= 400 && error.status < 600 ? error.status : 500;
    return c.json(
      {
        error: {
          code: status === 413 ? "BODY_TOO_LARGE" : "BAD_REQUEST",
          message: `${error.message}.`,
        },
      },
      status as 400,
    );
  }
  const status = statusOf(error);
  const code = error instanceof OdekError
    ? error.code
    : status === 400
    ? "BAD_REQUEST"
    : "INTERNAL";
  const message = error instanceof Error ? error.message : String(error);
  return c.json({ error: { code, message } }, status);
}

/** A JSON error answer with a code and status of the caller's choosing. */
export function errorBody(
  code: string,
  message: string,
): { error: { code: string; message: string } } {
  return { error: { code, message } };
}
