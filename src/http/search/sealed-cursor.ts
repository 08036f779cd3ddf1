/**
 * Opaque, tamper-evident cursors shared by the SCIM router (RFC 9865) and the analytics router:
 * a flat JSON object of position fields plus `q`, an HMAC over those fields and over what the
 * cursor is bound to (the query it came from), all base64url. The client can read it but not
 * change the position, nor replay it with another query, without the MAC failing.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** A value a cursor field may hold: JSON scalars only, so the payload stays flat and small. */
export type CursorField = string | number | boolean | null;

/** Longest cursor accepted, so a client cannot make the service decode and hash megabytes. */
const MAX_CURSOR_LENGTH = 4096;
/** The field holding the MAC; position fields may not use it. */
const SEAL_FIELD = "q";
/** 22 base64url characters: 132 bits of the SHA-256 MAC, plenty against guessing, short in URLs. */
const SEAL_LENGTH = 22;

function isCursorField(value: unknown): value is CursorField {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/**
 * The MAC over the binding and the fields in `fieldNames` order. With an empty secret it still
 * catches edited and corrupted cursors; a configured secret (the same in every process of a
 * deployment) makes them unforgeable.
 */
function mac(
  secret: string,
  binding: readonly unknown[],
  fieldNames: readonly string[],
  fields: Readonly<Record<string, unknown>>,
): string {
  const text = JSON.stringify([...binding, ...fieldNames.map((name) => fields[name])]);
  return createHmac("sha256", secret).update(text).digest("base64url").slice(0, SEAL_LENGTH);
}

/**
 * Seals `fields` (in `fieldNames` order) for the query described by `binding`.
 *
 * @example sealCursor(["k", "i"], { k: "alice", i: "2819c223" }, ["acme", "User", filter], secret)
 */
export function sealCursor(
  fieldNames: readonly string[],
  fields: Readonly<Record<string, CursorField>>,
  binding: readonly unknown[],
  secret: string,
): string {
  if (fieldNames.includes(SEAL_FIELD)) throw new Error(`sealed cursor: "${SEAL_FIELD}" is reserved for the seal`);
  const payload: Record<string, CursorField> = {};
  for (const name of fieldNames) payload[name] = fields[name] ?? null;
  payload[SEAL_FIELD] = mac(secret, binding, fieldNames, payload);
  return Buffer.from(JSON.stringify(payload)).toString("base64url");
}

/**
 * The fields of a cursor sealed with exactly `fieldNames` for `binding`, or `undefined` when it
 * is malformed, edited, or was issued for another query. Callers check the fields' types.
 */
export function openCursor(
  cursor: string,
  fieldNames: readonly string[],
  binding: readonly unknown[],
  secret: string,
): Readonly<Record<string, CursorField>> | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof decoded !== "object" || decoded === null || Array.isArray(decoded)) return undefined;
  const record = decoded as Record<string, unknown>;
  const expectedKeys = [...fieldNames, SEAL_FIELD].sort().join();
  if (Object.keys(record).sort().join() !== expectedKeys) return undefined;
  const given = record[SEAL_FIELD];
  if (typeof given !== "string") return undefined;
  const fields: Record<string, CursorField> = {};
  for (const name of fieldNames) {
    const value = record[name];
    if (!isCursorField(value)) return undefined;
    fields[name] = value;
  }
  const expected = Buffer.from(mac(secret, binding, fieldNames, fields));
  const presented = Buffer.from(given);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
  return fields;
}
