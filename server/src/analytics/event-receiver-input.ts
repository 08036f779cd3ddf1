/**
 * The checks of a receiver registration beyond its schema and beyond what `addReceiver` checks
 * itself: what would register a receiver that can never work, or one that shows a secret. Shared
 * by the operator API (400, naming the field) and the `scimkit receivers` command (exit 2).
 */
import type { EventReceiverInput, InvalidEventReceiverError } from "scimkit/events";

/** One refused member of a registration: `field` is the member's name, `index` the item of `events`. */
export interface EventReceiverInputError {
  readonly field: keyof EventReceiverInput;
  /** The position in `events` of the refused URI. */
  readonly index?: number;
  readonly message: string;
}

/**
 * A header value the fetch of a push can send: visible ASCII and inner spaces (RFC 9110 §5.5
 * field-value, without obs-text). Anything else would make every push fail before it leaves.
 */
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * What is wrong with `input`, member by member; empty when `addReceiver` may take it.
 *
 * @example eventReceiverInputErrors({ url: "https://user:pw@siem.example/events" }) // [{ field: "url", message: "must not carry …" }]
 */
export function eventReceiverInputErrors(input: EventReceiverInput): readonly EventReceiverInputError[] {
  const errors: EventReceiverInputError[] = [];
  let url: URL | undefined;
  try {
    url = new URL(input.url);
  } catch {
    errors.push({ field: "url", message: "must be an absolute URL, e.g. https://receiver.example.com/events" });
  }
  if (url !== undefined) {
    if (url.protocol !== "https:" && url.protocol !== "http:")
      errors.push({ field: "url", message: `must be https: (or http: for a local receiver), not ${url.protocol}` });
    // A user name or password would be shown to every reader of the receiver, and fetch refuses such URLs.
    else if (url.username !== "" || url.password !== "")
      errors.push({ field: "url", message: "must not carry a user name or password: give the header the receiver wants as authorization" });
  }
  if (input.delivery === "poll" && (input.authorization === undefined || input.authorization === ""))
    errors.push({
      field: "authorization",
      message: "is required for a poll receiver: the Authorization header value it will send to poll",
    });
  if (input.authorization !== undefined && input.authorization !== "" && !HEADER_VALUE.test(input.authorization))
    errors.push({
      field: "authorization",
      message: "must be an HTTP header value: printable ASCII, without line breaks or spaces at either end",
    });
  // RFC 9967 §2.4: a receiver gets a create, put or patch in its own form only; a URI of the other
  // form would never match, and the receiver would silently miss those events.
  const form = input.form ?? "notice";
  const other = form === "full" ? ":notice" : ":full";
  (input.events ?? []).forEach((uri, index) => {
    if (uri.endsWith(other))
      errors.push({
        field: "events",
        index,
        message: `is a ${other.slice(1)}-form URI, but the receiver's form is ${form}: use ${uri.slice(0, -other.length)}:${form}, or set form to ${other.slice(1)}`,
      });
  });
  return errors;
}

/** The member an `InvalidEventReceiverError` of `addReceiver` is about, from its message. */
export function fieldOfInvalidReceiver(error: InvalidEventReceiverError): keyof EventReceiverInput {
  const message = error.message;
  if (/^delivery\b/.test(message)) return "delivery";
  if (/^form\b/.test(message)) return "form";
  if (/authorization/i.test(message)) return "authorization";
  if (/event URI/.test(message)) return "events";
  return "url";
}
