/**
 * `scimkit/body` (docs/configuration.md "The app around the router"): the router's handling of
 * request bodies, for routes of your own beside SCIM. `jsonBodyParser` reads JSON as the router
 * does — a body over the limit refused on its declared length before a byte is read, a refused
 * body drained within bounds, `Expect: 100-continue` honoured — and hands each refusal to your
 * `refuse`, so your API answers in its own format; `requestErrorOf` reads what Express and its
 * parser throw for an unreadable request into a status and a sentence, for your error handler.
 * `boundUnreadBody`, mounted first, bounds the body of any request the app answers without
 * reading it (a 401, a 404, a 429).
 */
export { jsonBodyParser } from "./json-body-parser.js";
export type { BodyRefusal, JsonBodyParserOptions } from "./json-body-parser.js";
export { requestErrorOf } from "../error-rendering/request-error.js";
export type { RequestError } from "../error-rendering/request-error.js";
export { boundUnreadBody } from "./discard-request-body.js";
