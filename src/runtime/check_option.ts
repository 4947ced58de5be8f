/**
 * Small checks for the runtime's options at the edge (`createRuntime`, `openSession`,
 * `startRun`): a wrong shape is a `TypeError`, a value out of range a `RangeError`, and every
 * message names the option.
 *
 * @module
 */

/**
 * Check that `value` is a plain object (or absent when `optional`).
 *
 * @throws {TypeError} naming the option
 *
 * @example
 * ```ts
 * import { checkObject } from "./check_option.ts";
 * checkObject("options", {});
 * try { checkObject("options", 3); throw new Error("accepted"); } catch (e) { if (!(e instanceof TypeError)) throw e; }
 * ```
 */
export function checkObject(name: string, value: unknown, optional = false): void {
  if (value === undefined && optional) return;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${name} must be an object, got ${describe(value)}`);
  }
}

/**
 * Check an optional string option; `absolute` also requires a path starting with `/`, `nonEmpty`
 * a string with more than white space.
 *
 * @throws {TypeError} when it is not a string; {@linkcode RangeError} when it is empty or relative
 */
export function checkString(
  name: string,
  value: unknown,
  rules: { absolute?: boolean; nonEmpty?: boolean } = {},
): void {
  if (value === undefined) return;
  if (typeof value !== "string") {
    throw new TypeError(`${name} must be a string, got ${describe(value)}`);
  }
  if (rules.nonEmpty && value.trim() === "") throw new RangeError(`${name} must not be empty`);
  if (rules.absolute && !value.startsWith("/")) {
    throw new RangeError(`${name} must be an absolute path, got ${JSON.stringify(value)}`);
  }
}

/** Check an optional boolean option. @throws {TypeError} naming the option */
export function checkBoolean(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== "boolean") {
    throw new TypeError(`${name} must be a boolean, got ${describe(value)}`);
  }
}

/** Check an optional function option. @throws {TypeError} naming the option */
export function checkFunction(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== "function") {
    throw new TypeError(`${name} must be a function, got ${describe(value)}`);
  }
}

/**
 * Check an optional object that must have the named methods (a seam: store, clock, approver).
 *
 * @throws {TypeError} naming the option and the missing method
 */
export function checkMethods(name: string, value: unknown, methods: readonly string[]): void {
  if (value === undefined) return;
  checkObject(name, value);
  for (const method of methods) {
    if (typeof (value as Record<string, unknown>)[method] !== "function") {
      throw new TypeError(`${name}.${method} must be a function`);
    }
  }
}

/** Check an optional list of strings. @throws {TypeError} naming the option or the element */
export function checkStrings(name: string, value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) {
    throw new TypeError(`${name} must be an array, got ${describe(value)}`);
  }
  value.forEach((item, index) => checkString(`${name}[${index}]`, item));
}

/** Check an optional abort signal. @throws {TypeError} naming the option */
export function checkSignal(name: string, value: unknown): void {
  if (value !== undefined && !(value instanceof AbortSignal)) {
    throw new TypeError(`${name} must be an AbortSignal, got ${describe(value)}`);
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? JSON.stringify(value) : typeof value;
}
