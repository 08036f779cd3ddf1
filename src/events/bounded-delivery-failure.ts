/**
 * The size a stored delivery failure may have. A failure's text comes from outside — a receiver's
 * RFC 8935 §2.4 `description`, a poll receiver's RFC 8936 §2.4.4 `setErrs` — and is kept with the
 * receiver and shown to the organization's admins: every store cuts it here before writing.
 */
import type { DeliveryFailure } from "./event-receiver-store.js";

/** Most characters of `DeliveryFailure.description` kept. */
export const MAX_FAILURE_DESCRIPTION_LENGTH = 500;

/** Most characters of `DeliveryFailure.error` (and `jti`) kept: a code, not prose. */
export const MAX_FAILURE_CODE_LENGTH = 100;

function cut(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

/** `failure` with its texts cut to their bounds. */
export function boundedDeliveryFailure(failure: DeliveryFailure): DeliveryFailure {
  const { description, ...rest } = failure;
  return {
    ...rest,
    jti: cut(failure.jti, MAX_FAILURE_CODE_LENGTH),
    error: cut(failure.error, MAX_FAILURE_CODE_LENGTH),
    ...(description === undefined ? {} : { description: cut(description, MAX_FAILURE_DESCRIPTION_LENGTH) }),
  };
}
